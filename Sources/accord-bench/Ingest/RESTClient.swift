import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// REST calls to the server under test, one at a time (as `accord documents ingest`
/// makes them).
struct RESTClient: Sendable {
    let port: Int
    let token: String

    /// The JSON answer (nil when it is not JSON); a status outside 2xx is a failure.
    @discardableResult
    func call(_ method: String, _ path: String, body: Data? = nil) async throws -> Any? {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        request.timeoutInterval = 3600
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw BenchFailure("\(method) \(path): HTTP \(status) \(String(decoding: data, as: UTF8.self).prefix(300))")
        }
        return try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }
}
