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
}
