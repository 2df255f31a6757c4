/// The one rule for document ids, at the wire and in the store: 1 to 256 bytes of
/// UTF-8 without control characters. It lives here, the lowest layer, so the codecs and
/// `AccordStore.DocumentID` share it. Checking at the wire means a server never routes,
/// logs or stores a frame under a name the store would refuse.
package enum WireDocumentID {
    package static let maxBytes = 256

    /// Throws ``ErrorCode/invalidArgument`` saying what is wrong; decoders relabel it
    /// as ``ErrorCode/malformedMessage``.
    package static func validate(_ id: String) throws(AccordError) {
        try validateName(id, kind: "document id")
    }

    /// The same rule for the other short names that travel with documents (user ids),
    /// so every name is equally safe in JSON, query strings and log lines. `kind` names
    /// the thing in the message.
    package static func validateName(_ name: String, kind: String) throws(AccordError) {
        let count = name.utf8.count
        guard count >= 1, count <= maxBytes else {
            throw AccordError(.invalidArgument, "a \(kind) has 1 to \(maxBytes) bytes of UTF-8, not \(count)")
        }
        if let bad = name.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let hex = String(bad.value, radix: 16, uppercase: true)
            throw AccordError(.invalidArgument, "a \(kind) may not contain the control character U+\(hex)")
        }
    }
}
