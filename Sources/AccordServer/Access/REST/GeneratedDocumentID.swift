import Foundation
import AccordStore

/// Ids for documents created without one: 128 random bits in base64url without padding
/// (22 characters of `A-Z a-z 0-9 - _`), safe in a URL path unescaped and never ending
/// in a reserved suffix. 128 bits make a collision with another id negligible.
enum GeneratedDocumentID {
    static func make() -> DocumentID {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let text = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        // Always 22 characters of the base64url alphabet, which the id rule accepts.
        guard let id = DocumentID(rawValue: text) else { preconditionFailure("generated id \(text) is invalid") }
        return id
    }
}
