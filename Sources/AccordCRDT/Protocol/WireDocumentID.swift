/// Document ids as they travel in protocol messages: 1 to 256 bytes of UTF-8 without
/// control characters, the same rule as `AccordStore.DocumentID` (which lives above
/// this module, so the codecs cannot use it). Checking at the wire means a server never
/// routes, logs or stores a frame under a name the store would refuse.
enum WireDocumentID {
    static let maxBytes = 256

    /// Throws ``ErrorCode/invalidArgument`` saying what is wrong; decoders relabel it
    /// as ``ErrorCode/malformedMessage``.
    static func validate(_ id: String) throws(AccordError) {
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
