import Foundation
import AccordNet

/// JSON response bodies of the REST API: sorted keys (stable bytes for tests and
/// caches) and unescaped slashes (document ids may contain `/`).
enum RESTJSON {
    static let contentType = "application/json"

    static func response(
        status: Int, _ body: some Encodable, headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return HTTPResponse(
                status: status, contentType: contentType, headers: headers, body: Array(try encoder.encode(body)))
        } catch {
            // Only strings, numbers and dictionaries of them are encoded, so this is a bug.
            return HTTPResponse(status: 500, text: "cannot encode the response: \(error)\n")
        }
    }

    /// The same JSON as text (directory events carry the document body); nil only if
    /// encoding fails, which the bodies' plain fields never make it do.
    static func text(_ body: some Encodable) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(body)).map { String(decoding: $0, as: UTF8.self) }
    }
}
