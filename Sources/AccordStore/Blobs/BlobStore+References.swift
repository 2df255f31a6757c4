public import AccordCRDT

/// What ``BlobStore/collectGarbage()`` removed.
public struct BlobGarbageReport: Hashable, Sendable {
    /// Blobs that no document referenced, ascending by hash.
    public var removedBlobs: [BlobInfo]
    /// What puts that never finished (interrupted by a crash or an error) left behind:
    /// upload files, content files no index record names, and chunk logs.
    public var removedOrphanUploads: Int

    public init(removedBlobs: [BlobInfo], removedOrphanUploads: Int) {
        self.removedBlobs = removedBlobs
        self.removedOrphanUploads = removedOrphanUploads
    }
}

/// The reference index: which documents use which blobs. The store does not read
/// documents; the app (or the document store) says what a document references, and
/// ``collectGarbage()`` trusts that.
extension BlobStore {
    /// Records that `document` references the blob. Returns false when it already did.
    /// `BLOB_NOT_FOUND` when the blob is not stored, `INVALID_ARGUMENT` for an empty
    /// document id.
    @discardableResult
    public func addReference(_ hash: BlobHash, document id: DocumentID) throws(AccordError) -> Bool {
        let document = id.rawValue
        return try storage.withAdapter { adapter in
            guard try adapter.read(.blobIndex, key: hash.hex) != nil else { throw Self.notFound(hash) }
            let batch = try Self.referenceAdditions(of: hash, document: document, in: adapter)
            try adapter.commit(batch)
            return !batch.isEmpty
        }
    }

    /// Drops `document`'s reference to the blob. Returns false when there was none.
    /// The blob stays stored until ``collectGarbage()`` or ``delete(_:)``.
    @discardableResult
    public func removeReference(_ hash: BlobHash, document id: DocumentID) throws(AccordError) -> Bool {
        let document = id.rawValue
        return try storage.withAdapter { adapter in
            var hashes = try Self.references(of: document, in: adapter)
            var documents = try Self.referrers(of: hash, in: adapter)
            // Both halves are updated even if one was already missing, to repair it.
            let hadHash = hashes.remove(hash) != nil
            let hadDocument = documents.remove(Array(document.utf8)) != nil
            guard hadHash || hadDocument else { return false }
            try adapter.commit([
                BlobReferenceLists.storeHashes(hashes, document: document),
                BlobReferenceLists.storeDocuments(documents, blob: hash),
            ])
            return true
        }
    }

    /// The blobs `document` references, ascending by hash.
    public func blobs(referencedBy id: DocumentID) throws(AccordError) -> [BlobInfo] {
        let document = id.rawValue
        return try storage.withAdapter { adapter in
            try Self.references(of: document, in: adapter).sorted().map { hash in
                // delete(_:) drops references in the same batch, so a reference always
                // names a stored blob.
                guard let record = try Self.indexRecord(hash, in: adapter) else {
                    throw AccordError(
                        .storageCorrupt, "document \(document) references blob \(hash), which is not stored",
                        details: ["document": document, "blob": hash.hex])
                }
                return record.info(hash)
            }
        }
    }

    /// The hashes of the blobs `document` references, ascending, without reading their
    /// index records (cheaper than ``blobs(referencedBy:)`` for callers that need no info).
    package func hashes(referencedBy id: DocumentID) throws(AccordError) -> [BlobHash] {
        let document = id.rawValue
        return try storage.withAdapter { adapter in
            guard let bytes = try adapter.read(.blobRefs, key: document) else { return [] }
            return try BlobReferenceLists.decodeHashList(bytes, document: document)
        }
    }

    /// The documents referencing the blob, ascending by UTF-8 bytes.
    public func documents(referencing hash: BlobHash) throws(AccordError) -> [DocumentID] {
        let raw = try storage.withAdapter { adapter in
            try Self.referrers(of: hash, in: adapter).sorted { $0.lexicographicallyPrecedes($1) }
                .map { String(decoding: $0, as: UTF8.self) }
        }
        return try raw.map { (text) throws(AccordError) -> DocumentID in
            do {
                return try DocumentID(stored: text)
            } catch {
                throw AccordError(.storageCorrupt, "blob \(hash) names an invalid document id", details: ["blob": hash.hex])
            }
        }
    }

    /// Removes, in one atomic batch, every blob no document references and every chunk
    /// log left by a put that never finished, then the content files of the removed
    /// blobs and every file in the blob directory that no index record names (upload
    /// files and content files of interrupted puts). Puts still running in this process
    /// are left alone. Runs only when asked: a blob just stored without `referencedBy`
    /// is unreferenced until ``addReference(_:document:)``.
    ///
    /// `keepingUnreferenced` may spare unreferenced blobs (a grace period): it is asked
    /// about each one under the same hold of the storage lock that decides and commits
    /// the removal, with the adapter to read its own rows from (it must not call the
    /// storage itself: the lock is held). So a reference added concurrently either
    /// lands before the collection (the blob is referenced and kept) or after it (and
    /// then finds the blob gone, `BLOB_NOT_FOUND`), never in between.
    @discardableResult
    public func collectGarbage(
        keepingUnreferenced keep: (BlobInfo, any StorageAdapter) throws -> Bool = { _, _ in false }
    ) throws(AccordError) -> BlobGarbageReport {
        let directory = directory
        return try storage.withAdapter { adapter in
            let referenced = Set(try adapter.keys(in: .blobReferrers))
            var batch: [StorageOperation] = []
            var removed: [BlobInfo] = []
            // Every upload an index record names, kept or removed here; the rest are orphans.
            var indexedUploads = Set<String>()
            // The content files of the blobs that stay; every other file is removed.
            var keptFiles = Set<String>()
            for key in try adapter.keys(in: .blobIndex) {
                let hash = try Self.storedHash(key)
                guard let record = try Self.indexRecord(hash, in: adapter) else { continue }
                if let logKey = record.chunkLogKey { indexedUploads.insert(logKey) }
                if !referenced.contains(key), try !keep(record.info(hash), adapter) {
                    batch.append(.delete(.blobIndex, key: key))
                    if let logKey = record.chunkLogKey { batch.append(.deleteLog(.blobChunks, key: logKey)) }
                    removed.append(record.info(hash))
                } else if record.isFile {
                    keptFiles.insert(key)
                }
            }
            var orphans = 0
            for key in try adapter.logKeys(in: .blobChunks)
            where !indexedUploads.contains(key) && !ActiveUploads.shared.contains(key) {
                batch.append(.deleteLog(.blobChunks, key: key))
                orphans += 1
            }
            try adapter.commit(batch)
            // Files only after the commit: a crash in between leaves files that the next
            // collection removes, never an index record without its file.
            if let directory {
                let removedFiles = Set(removed.map(\.hash.hex))
                for name in try directory.names() {
                    if BlobDirectory.isContentName(name) {
                        guard !keptFiles.contains(name) else { continue }
                        if try directory.removeFile(name), !removedFiles.contains(name) { orphans += 1 }
                    } else if name.hasPrefix(BlobDirectory.uploadPrefix),
                        !ActiveUploads.shared.contains(String(name.dropFirst(BlobDirectory.uploadPrefix.count)))
                    {
                        if try directory.removeFile(name) { orphans += 1 }
                    }
                }
            }
            return BlobGarbageReport(removedBlobs: removed, removedOrphanUploads: orphans)
        }
    }

    // MARK: Helpers (called with the storage lock held)

    static func references(of document: String, in adapter: any StorageAdapter) throws -> Set<BlobHash> {
        guard let bytes = try adapter.read(.blobRefs, key: document) else { return [] }
        return try BlobReferenceLists.decodeHashes(bytes, document: document)
    }

    /// The referrers' document ids as UTF-8 bytes (see ``BlobReferenceLists``).
    static func referrers(of hash: BlobHash, in adapter: any StorageAdapter) throws -> Set<[UInt8]> {
        guard let bytes = try adapter.read(.blobReferrers, key: hash.hex) else { return [] }
        return try BlobReferenceLists.decodeDocuments(bytes, blob: hash)
    }

    /// The operations that add `document → hash` to both halves of the index; empty
    /// when the reference exists already.
    static func referenceAdditions(of hash: BlobHash, document: String, in adapter: any StorageAdapter) throws
        -> [StorageOperation]
    {
        // The document's list grows with every blob it references: added to in place.
        let hashes = try BlobReferenceLists.addingHash(hash, to: adapter.read(.blobRefs, key: document), document: document)
        var documents = try referrers(of: hash, in: adapter)
        let newDocument = documents.insert(Array(document.utf8)).inserted
        var batch: [StorageOperation] = []
        if let hashes { batch.append(.put(.blobRefs, key: document, value: hashes)) }
        if newDocument { batch.append(BlobReferenceLists.storeDocuments(documents, blob: hash)) }
        return batch
    }

    /// The operations that drop every reference to `hash` (for ``delete(_:)``).
    static func referenceRemovals(of hash: BlobHash, in adapter: any StorageAdapter) throws -> [StorageOperation] {
        let documents = try referrers(of: hash, in: adapter)
        guard !documents.isEmpty else { return [] }
        var batch: [StorageOperation] = [.delete(.blobReferrers, key: hash.hex)]
        for documentBytes in documents {
            let document = String(decoding: documentBytes, as: UTF8.self)
            var hashes = try references(of: document, in: adapter)
            hashes.remove(hash)
            batch.append(BlobReferenceLists.storeHashes(hashes, document: document))
        }
        return batch
    }
}
