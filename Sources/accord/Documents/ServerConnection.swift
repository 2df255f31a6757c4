import AccordCRDT
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// REST calls to a running `accord serve`, for the CLI's server commands: a base URL and
/// a bearer token, synchronous (the CLI's main thread waits). A JSON error body becomes
/// the ``AccordError`` it describes, so the server's codes reach the user unchanged.
struct ServerConnection: Sendable {
    let base: String
    let token: String

    init(server: String, token: String) throws(AccordError) {
        var base = server
        while base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw AccordCommand.usageError("--server takes an http:// or https:// URL, not '\(server)'")
        }
        self.base = base
        self.token = token
    }

    /// The document path `/v1/documents/<id>` with the id percent-encoded segment by segment.
    static func documentPath(_ id: String) -> String {
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%;"))
        return "/v1/documents/" + (id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id)
    }

    /// `{"result": ...}` of a successful call.
    @discardableResult
    func call(_ method: String, _ path: String, body: [UInt8]? = nil, contentType: String = "application/json") throws(AccordError) -> AnyValue {
        guard let url = URL(string: base + path) else { throw AccordError(.invalidArgument, "bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 3600
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = Data(body)
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        let box = ResponseBox()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            box.value = (data, (response as? HTTPURLResponse)?.statusCode, error.map { "\($0.localizedDescription)" })
            done.signal()
        }.resume()
        done.wait()
        guard let (data, status, failure) = box.value, let status else {
            throw AccordError(.ioError, "cannot reach \(base): \(box.value?.2 ?? "no response")", details: ["server": base])
        }
        let text = String(decoding: data ?? Data(), as: UTF8.self)
        let json = try? AnyValue(jsonText: text)
        guard (200..<300).contains(status) else {
            if case .object(let root)? = json, case .object(let error)? = root["error"],
               case .string(let code)? = error["code"], case .string(let message)? = error["message"]
            {
                var details: [String: String] = [:]
                if case .object(let entries)? = error["details"] {
                    for (key, value) in entries { if case .string(let text) = value { details[key] = text } }
                }
                throw AccordError(ErrorCode(rawValue: code), message, details: details)
            }
            throw AccordError(.ioError, "\(method) \(path): HTTP \(status) \(text.prefix(200))", details: ["status": String(status)])
        }
        _ = failure
        guard case .object(let root)? = json, let result = root["result"] else {
            throw AccordError(.ioError, "\(method) \(path): the server's answer has no result")
        }
        return result
    }

    private final class ResponseBox: @unchecked Sendable {
        // Written once by the session's callback before the semaphore signals.
        var value: (Data?, Int?, String?)?
    }
}
