/// The one rule for document ids, at the wire and in the store: 1 to 256 bytes of
/// UTF-8 without control characters. It lives here, the lowest layer, so the codecs and
/// `AccordStore.DocumentID` share it. Checking at the wire means a server never routes,
/// logs or stores a frame under a name the store would refuse.
package enum WireDocumentID {
    package static let maxBytes = 256

    /// Throws ``ErrorCode/invalidArgument`` saying what is wrong; decoders relabel it
    /// as ``ErrorCode/malformedMessage``.
    package static func validate(_ id: String) throws(AccordError) {
        let count = id.utf8.count
        guard count >= 1, count <= maxBytes else {
            throw AccordError(.invalidArgument, "a document id has 1 to \(maxBytes) bytes of UTF-8, not \(count)")
        }
        if let bad = id.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let hex = String(bad.value, radix: 16, uppercase: true)
            throw AccordError(.invalidArgument, "a document id may not contain the control character U+\(hex)")
        }
    }
}
