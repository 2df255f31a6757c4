public import AccordCRDT
public import AccordStore
import Foundation

/// Where the client keeps its blob bookkeeping, in the document store's storage (so
/// it is as durable as the documents, sealed with them, and wiped with them).
enum BlobClientCategories {
    /// Uploads not yet acknowledged: key `<hash>/<document id>`, value a
    /// ``BlobUploadEntry`` as JSON.
    static let uploads = StorageCategory("client.blobUploads")
    /// Blobs pinned on this device: key the hash, empty value.
    static let pins = StorageCategory("client.blobPins")
    /// Documents whose attachments are all kept on this device: key the document id.
    static let pinnedDocuments = StorageCategory("client.blobPinnedDocuments")
}

/// One queued upload: a blob of a document the server may not hold yet.
struct BlobUploadEntry: Hashable, Sendable, Codable {
    var hash: String
    var documentID: String
    var size: Int64
    var contentType: String
    /// When it was queued (ms since 1970): uploads run oldest first.
    var queuedAt: Int64

    var key: String { Self.key(hash: hash, document: documentID) }

    static func key(hash: String, document: String) -> String { "\(hash)/\(document)" }

    var document: DocumentID? { DocumentID(rawValue: documentID) }

    func encoded() -> [UInt8] {
        // Encoding a struct of strings and integers cannot fail.
        Array(try! JSONEncoder().encode(self))
    }

    /// Reads a stored entry; a damaged one is `STORAGE_CORRUPT`.
    static func decode(_ bytes: [UInt8], key: String) throws(AccordError) -> BlobUploadEntry {
        guard let entry = try? JSONDecoder().decode(BlobUploadEntry.self, from: Data(bytes)), entry.key == key,
            entry.size >= 0, BlobRef.isBlob(.object(["$blob": .string(entry.hash), "size": .int(entry.size)]))
        else {
            throw AccordError(.storageCorrupt, "a queued blob upload record is damaged", details: ["key": String(key.prefix(200))])
        }
        return entry
    }
}

/// The download cache's choice of what to evict, apart from any I/O so it is tested
/// on its own: least recently used first, never a kept blob (pinned, or with an
/// upload pending), until the total is at most the cap.
enum BlobCachePolicy {
    struct Candidate: Hashable {
        var hash: String
        var size: Int64
        var lastUsed: Int64
    }

    static func evictions(_ stored: [Candidate], keep: Set<String>, cap: Int64) -> [String] {
        var total = stored.reduce(Int64(0)) { $0 + $1.size }
        guard total > cap else { return [] }
        var evicted: [String] = []
        let order = stored.filter { !keep.contains($0.hash) }
            .sorted { ($0.lastUsed, $0.hash) < ($1.lastUsed, $1.hash) }
        for candidate in order where total > cap {
            evicted.append(candidate.hash)
            total -= candidate.size
        }
        return evicted
    }
}
