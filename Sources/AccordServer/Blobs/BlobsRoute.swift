/// The blob paths under a document: `/v1/documents/{id}/blobs` (the list) and
/// `/v1/documents/{id}/blobs/{sha256}` (one blob, 64 hex digits).
///
/// Document ids may contain `/`, so the id is everything between `/v1/documents/` and
/// the last `/blobs` segment; ``DocumentDirectory`` refuses ids that would read as a
/// blob path, so every document's blobs are reachable. Bytes are compared, not
/// `Character`s (see ``DocumentsRoute``).
struct BlobsRoute: Equatable {
    /// The document id as sent (validated later).
    var document: String
    /// The blob's hex digits as sent; nil for the list.
    var blob: String?

    static func parse(_ path: String) -> BlobsRoute? {
        let bytes = Array(path.utf8)
        let prefix = Array(DocumentsRoute.documentPrefix.utf8)
        guard bytes.starts(with: prefix) else { return nil }
        let rest = bytes[prefix.count...]
        let list = Array("/blobs".utf8)
        if rest.count > list.count, rest.suffix(list.count).elementsEqual(list) {
            return BlobsRoute(document: String(decoding: rest.dropLast(list.count), as: UTF8.self), blob: nil)
        }
        let one = Array("/blobs/".utf8)
        let digits = 64
        guard rest.count > one.count + digits else { return nil }
        let hex = rest.suffix(digits)
        guard hex.allSatisfy(Self.isHexDigit), rest.dropLast(digits).suffix(one.count).elementsEqual(one) else { return nil }
        return BlobsRoute(
            document: String(decoding: rest.dropLast(digits + one.count), as: UTF8.self),
            blob: String(decoding: hex, as: UTF8.self))
    }

    /// Whether a document id would be read as (part of) a blob path.
    static func isReserved(documentID: String) -> Bool {
        parse(DocumentsRoute.documentPrefix + documentID) != nil
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
    }
}
