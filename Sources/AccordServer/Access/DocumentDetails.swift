import Foundation
public import AccordCRDT
public import AccordStore

/// What the directory keeps per document beyond the store's title and tags: the app's
/// `metadata` (a JSON value of at most ``maxMetadataBytes`` as compact JSON text) and a
/// thumbnail blob id, stored as given (blob sync is a later issue).
///
/// One row per document with either set, category `server.details`, key = document id,
/// value = this type's JSON with sorted keys (`{"metadata":"{\"a\":1}","thumbnailBlobId":"…"}`).
/// No row reads as both unset. Like the access row, a row counts only while its document
/// exists, and a refusal never writes one.
public struct DocumentDetails: Sendable, Hashable, Codable {
    /// The metadata as compact JSON text, nil when unset.
    public var metadata: String?
    public var thumbnailBlobID: String?

    /// The longest metadata, in bytes of compact JSON text.
    public static let maxMetadataBytes = 4096
    /// The longest thumbnail blob id, in UTF-8 bytes.
    public static let maxThumbnailIDBytes = 256

    static let category = StorageCategory("server.details")

    public init(metadata: String? = nil, thumbnailBlobID: String? = nil) {
        self.metadata = metadata
        self.thumbnailBlobID = thumbnailBlobID
    }

    private enum CodingKeys: String, CodingKey {
        case metadata
        case thumbnailBlobID = "thumbnailBlobId"
    }

    /// The compact JSON text of `value` when it fits; `METADATA_TOO_LARGE` (400) otherwise.
    public static func metadataText(_ value: AnyValue) throws(AccordError) -> String {
        let text = value.jsonText
        guard text.utf8.count <= maxMetadataBytes else {
            throw AccordError(
                .metadataTooLarge, "metadata is \(text.utf8.count) bytes as JSON; the limit is \(maxMetadataBytes)",
                details: ["field": "metadata", "limit": String(maxMetadataBytes)])
        }
        return text
    }

    /// `INVALID_ARGUMENT` for an empty or over-long thumbnail id.
    public static func validateThumbnailID(_ id: String) throws(AccordError) {
        guard !id.isEmpty, id.utf8.count <= maxThumbnailIDBytes else {
            throw AccordError(
                .invalidArgument, "a thumbnail blob id has 1 to \(maxThumbnailIDBytes) bytes",
                details: ["field": "thumbnailBlobId"])
        }
    }
}

extension DocumentDirectory {
    /// A document's details; both unset when it has no row.
    /// - Throws: `STORAGE_CORRUPT` for a row that does not decode; storage errors.
    public func details(_ id: DocumentID) throws(AccordError) -> DocumentDetails {
        guard let bytes = try access.storage.withAdapter({ try $0.read(DocumentDetails.category, key: id.rawValue) })
        else { return DocumentDetails() }
        do {
            return try JSONDecoder().decode(DocumentDetails.self, from: Data(bytes))
        } catch {
            throw AccordError(
                .storageCorrupt, "the details row of document \(id) is unreadable: \(error)",
                details: ["document": id.rawValue])
        }
    }

    /// Stores a document's details; both unset removes the row.
    public func setDetails(_ details: DocumentDetails, for id: DocumentID) throws(AccordError) {
        if details == DocumentDetails() {
            try access.storage.withAdapter { try $0.commit([.delete(DocumentDetails.category, key: id.rawValue)]) }
            return
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(details))
        } catch {
            throw AccordError(.storageError, "cannot encode the details of \(id): \(error)")
        }
        try access.storage.withAdapter { try $0.commit([.put(DocumentDetails.category, key: id.rawValue, value: bytes)]) }
    }
}
