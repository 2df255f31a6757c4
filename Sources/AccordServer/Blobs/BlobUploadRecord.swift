import AccordCRDT
import AccordStore
import Foundation

/// An unfinished upload of one blob to one document: stored (category
/// `server.blob.uploads`, key `<sha256 hex>/<document id>`, value this type's JSON)
/// before the first byte of its body is accepted, so it survives a restart. Its bytes
/// are the file ``file`` in the uploads directory; how many it holds is the file's
/// length, and the hash state is rebuilt by reading them again when the upload
/// continues, so nothing but the file needs to be durable.
struct BlobUploadRecord: Codable, Equatable {
    /// The blob's size as announced (Content-Length or the Content-Range total).
    var total: Int64
    var contentType: String
    /// The document's owner when the upload started: the quota it counts against.
    var owner: String
    /// The file's name in the uploads directory (random, 32 hex digits).
    var file: String
    /// Milliseconds since 1970 of the last request that added to it.
    var updated: UInt64

    static func key(_ hash: BlobHash, _ document: DocumentID) -> String { "\(hash.hex)/\(document.rawValue)" }

    /// The blob and document a key names.
    static func parts(of key: String) -> (hash: BlobHash, document: DocumentID)? {
        let bytes = Array(key.utf8)
        guard bytes.count > 65, bytes[64] == UInt8(ascii: "/"),
            let hash = try? BlobHash(hex: String(decoding: bytes[..<64], as: UTF8.self)),
            let document = try? DocumentID(validating: String(decoding: bytes[65...], as: UTF8.self))
        else { return nil }
        return (hash, document)
    }

    static func newFileName() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

extension ServerBlobs {
    func uploadRecord(_ key: String) throws(AccordError) -> BlobUploadRecord? {
        let bytes = try store.storage.withAdapter { adapter in try adapter.read(Self.uploadsCategory, key: key) }
        guard let bytes else { return nil }
        do {
            return try JSONDecoder().decode(BlobUploadRecord.self, from: Data(bytes))
        } catch {
            throw AccordError(.storageCorrupt, "the upload record \(key.prefix(120)) is unreadable: \(error)")
        }
    }

    func saveUploadRecord(_ record: BlobUploadRecord, key: String) throws(AccordError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let bytes = try? encoder.encode(record) else {
            throw AccordError(.storageError, "cannot encode an upload record")
        }
        try store.storage.withAdapter { adapter in
            try adapter.commit([.put(Self.uploadsCategory, key: key, value: Array(bytes))])
        }
    }

    /// Every unfinished upload, by key.
    func uploadRecords() throws(AccordError) -> [(key: String, record: BlobUploadRecord)] {
        let keys = try store.storage.withAdapter { adapter in try adapter.keys(in: Self.uploadsCategory) }
        var records: [(key: String, record: BlobUploadRecord)] = []
        for key in keys {
            if let record = try uploadRecord(key) { records.append((key, record)) }
        }
        return records
    }

    /// Removes the record first, then its file: a crash in between leaves a file no
    /// record names, which a collection removes.
    func discardUpload(_ key: String, _ record: BlobUploadRecord) throws(AccordError) {
        try store.storage.withAdapter { adapter in try adapter.commit([.delete(Self.uploadsCategory, key: key)]) }
        if let path = partialPath(record.file) { unlink(path) }
    }

    func partialPath(_ file: String) -> String? {
        uploadsDirectory.map { "\($0)/\(file).part" }
    }

    /// Bytes the unfinished upload holds (its file's length; 0 when the file is missing).
    func heldBytes(_ record: BlobUploadRecord) -> Int64 {
        guard let path = partialPath(record.file) else { return 0 }
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        return Int64(status.st_size)
    }

    /// Creates the uploads directory (0700) when missing.
    func prepareUploadsDirectory() throws(AccordError) -> String {
        guard let uploadsDirectory else {
            throw AccordError(.storageError, "this server's storage has no directory for blob uploads")
        }
        if let parent = store.directory, uploadsDirectory.hasPrefix(parent.path + "/") {
            mkdir(parent.path, 0o700)
        }
        if mkdir(uploadsDirectory, 0o700) != 0, errno != EEXIST {
            throw AccordError(
                .storageError, "cannot create the blob uploads directory: \(String(cString: strerror(errno)))",
                details: ["path": uploadsDirectory])
        }
        return uploadsDirectory
    }

    /// What `owner` uses against the quota: each distinct blob referenced by the
    /// documents they own, once, plus the announced size of their unfinished uploads
    /// and of their small uploads being received (reserved, so two uploads cannot
    /// both pass the check), except `excluding`.
    func usage(of owner: String, excluding excludedKey: String?) throws(AccordError) -> Int64 {
        // The hashes alone, sizes from memory: this runs before every upload, and
        // reading each referenced blob's index record made an owner's thousandth
        // upload cost a thousand reads.
        var lists: [[BlobHash]] = []
        var cursor: UInt64 = 0
        while true {
            let page = try directory.ownedDocuments(of: owner, after: cursor, limit: 500)
            for document in page.documents {
                let hashes = try store.hashes(referencedBy: document.id)
                if !hashes.isEmpty { lists.append(hashes) }
            }
            guard let next = page.next else { break }
            cursor = next
        }
        // One document's list holds each hash once: no set needed to count them once.
        var total: Int64
        if lists.count <= 1 {
            total = try totalSize(of: lists.first ?? [])
        } else {
            var seen = Set<BlobHash>()
            total = try totalSize(of: lists.joined().filter { seen.insert($0).inserted })
        }
        for (key, record) in try uploadRecords() where record.owner == owner && key != excludedKey {
            total += record.total
        }
        return total + smallUploadBytes(of: owner, excluding: excludedKey)
    }
}
