/// The one rule for document ids, at the wire, in the server's routes and in the store:
/// 1 to 256 bytes of UTF-8 without control characters, made of `/`-separated segments
/// none of which is empty, `.` or `..` (so no leading or trailing `/` and no `//`).
/// Every other byte is literal (`+` is a plus, `%` a percent sign).
///
/// It lives here, the lowest layer, so the codecs and `AccordStore.DocumentID` share it.
/// Checking at the wire means a server never routes, logs or stores a frame under a
/// name the store would refuse. The segment rule exists because ids travel in URL paths
/// (`/v1/sync/{id}`, `/v1/documents/{id}`), where HTTP stacks, proxies and browsers
/// normalise `.`, `..` and `//`: an id that normalisation would change could be created
/// but never addressed, or one path could name two documents.
package enum WireDocumentID {
    package static let maxBytes = 256

    /// Throws ``ErrorCode/invalidArgument`` saying what is wrong; decoders relabel it
    /// as ``ErrorCode/malformedMessage``.
    package static func validate(_ id: String) throws(AccordError) {
        try validateName(id, kind: "document id")
        try validateSegments(id)
    }

    /// The same rule for the other short names that travel with documents (user ids),
    /// so every name is equally safe in JSON, query strings and log lines. `kind` names
    /// the thing in the message. Document ids stored before the segment rule passed
    /// this check only; stores still read them (see `DocumentID(stored:)`).
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

    /// No empty, `.` or `..` segment between `/`s. Bytes, not `Character`s: a combining
    /// mark after `/` or `.` must not hide either.
    private static func validateSegments(_ id: String) throws(AccordError) {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        for segment in id.utf8.split(separator: slash, omittingEmptySubsequences: false) {
            if segment.isEmpty {
                throw AccordError(
                    .invalidArgument,
                    "a document id may not start or end with '/' or contain '//' (URL paths would change it)",
                    details: ["document": id])
            }
            if segment.allSatisfy({ $0 == dot }), segment.count <= 2 {
                throw AccordError(
                    .invalidArgument, "a document id may not have a '.' or '..' segment (URL paths would change it)",
                    details: ["document": id])
            }
        }
    }
}
