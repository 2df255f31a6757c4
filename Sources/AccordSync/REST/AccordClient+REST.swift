public import AccordCRDT
import AccordNet
import Foundation

/// A call to the server's REST API (`docs/server-api.md`): the method, the path under
/// the server's address, query items and a JSON body.
package struct ServerCall: Sendable {
    package enum Method: String, Sendable {
        case get = "GET", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE"
    }
    package var method: Method
    /// Segments are joined with `/` and percent-encoded (a document id keeps its `/`s).
    package var path: [String]
    package var query: [(name: String, value: String)]
    package var body: [UInt8]
    /// How long the call may take; nil: ``AccordClient/restTimeout``.
    package var timeout: Duration?

    package init(
        _ method: Method, _ path: [String], query: [(name: String, value: String)] = [], body: [UInt8] = [],
        timeout: Duration? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.timeout = timeout
    }
}

extension AccordClient {
    /// How long a REST call may take before it fails with `NETWORK_TIMEOUT`.
    package static let restTimeout: Duration = .seconds(15)

    /// Sends `call` with the token provider's bearer token and returns the 2xx body.
    /// A 401 asks the provider once more (with `.unauthenticated`) and retries once.
    ///
    /// - Throws: the server's refusal as `AccordError` with its code, `details` and
    ///   `httpStatus`; `NETWORK_ERROR` when no answer came (offline, refused, DNS, a
    ///   broken connection); `NETWORK_TIMEOUT`; `UNEXPECTED_RESPONSE`.
    package func send(_ call: ServerCall) async throws(AccordError) -> [UInt8] {
        var reason = TokenRequestReason.connect
        while true {
            let token: String
            do {
                token = try await tokenProvider(reason)
            } catch let error as AccordError {
                throw error
            } catch {
                throw AccordError(TokenRequestReason.refusalCode, "the token provider failed: \(error)")
            }
            let response = try await sendOnce(call, token: token)
            if (200..<300).contains(response.status) { return response.body }
            let error = ServerErrorMapping.error(status: response.status, body: response.body)
            guard response.status == 401, case .connect = reason else { throw error }
            reason = .unauthenticated(error)
        }
    }

    private func sendOnce(_ call: ServerCall, token: String) async throws(AccordError) -> HTTPClientResponse {
        let http: HTTPClient
        do {
            http = try restTransport()
        } catch {
            throw ServerErrorMapping.error(error)
        }
        var headers: [(name: String, value: String)] = [("authorization", "Bearer \(token)")]
        if !call.body.isEmpty { headers.append(("content-type", "application/json")) }
        let request = HTTPClientRequest(
            HTTPMethod(rawValue: call.method.rawValue), restURL(call), headers: headers, body: call.body)
        do {
            return try await http.send(request, timeout: call.timeout ?? Self.restTimeout)
        } catch {
            throw ServerErrorMapping.error(error)
        }
    }

    /// The client's HTTP transport, made on first use (one lws thread per client).
    func restTransport() throws(NetError) -> HTTPClient {
        if let httpClient { return httpClient }
        // TLS settings (OpenSSL state) only for a server reached over TLS.
        let secure = serverURL.lowercased().hasPrefix("wss://") || serverURL.lowercased().hasPrefix("https://")
        let made = try HTTPClient(tls: secure ? tls : nil)
        httpClient = made
        return made
    }

    /// `serverURL` with `ws` turned into `http`, the path and the query, encoded.
    func restURL(_ call: ServerCall) -> String {
        var base = serverURL
        if base.lowercased().hasPrefix("ws://") { base = "http://" + base.dropFirst(5) }
        if base.lowercased().hasPrefix("wss://") { base = "https://" + base.dropFirst(6) }
        var url = base + "/" + call.path.map(Self.encodePath).joined(separator: "/")
        if !call.query.isEmpty {
            url += "?" + call.query.map { "\(Self.encodeQuery($0.name))=\(Self.encodeQuery($0.value))" }.joined(separator: "&")
        }
        return url
    }

    /// Everything but unreserved characters and `/` is escaped, so `%`, `?`, `#`, spaces
    /// and non-ASCII in an id reach the server as the id's own bytes.
    private static func encodePath(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~/")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private static func encodeQuery(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
