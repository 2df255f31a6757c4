public import AccordCRDT

/// One blob of a ``BlobStore/putAll(_:referencedBy:)``.
public struct BlobContent: Sendable, Hashable {
    public var bytes: [UInt8]
    public var contentType: String

    public init(_ bytes: [UInt8], contentType: String = "application/octet-stream") {
        self.bytes = bytes
        self.contentType = contentType
    }
}

extension BlobStore {
    /// Stores many blobs at once and returns their infos in order. The ones the storage
    /// keeps itself (``Tuning/inlineLimit``, or every one without a blob directory)
    /// are committed together in one batch, with `document`'s references: one sync
    /// for all of them, where one ``put(_:contentType:referencedBy:)`` each would pay
    /// one each. Larger ones are put one by one first, as `put` does. Same dedupe
    /// rules as `put`; the same content twice in `items` is stored once.
    ///
    /// All or nothing for the batch: when it fails, none of its blobs is stored (larger
    /// blobs put before it stay, referenced, as after a failed sequence of puts).
    @discardableResult
    public func putAll(_ items: [BlobContent], referencedBy document: DocumentID? = nil) throws(AccordError) -> [BlobInfo] {
        try putAll(items, referencedBy: document, committingWith: [])
    }

    /// ``putAll(_:referencedBy:)`` committing `operations` in the batch of the small
    /// blobs (a client's upload-queue entries for them).
    @discardableResult
    package func putAll(
        _ items: [BlobContent], referencedBy document: DocumentID?, committingWith operations: [StorageOperation]
    ) throws(AccordError) -> [BlobInfo] {
        for item in items { try Self.validateContentType(item.contentType) }
        var infos = [BlobInfo?](repeating: nil, count: items.count)
        var small: [(index: Int, hash: BlobHash)] = []
        for (index, item) in items.enumerated() {
            if keepsInStorage(size: item.bytes.count) {
                // Hashed before the lock is taken, so the batch holds it only to commit.
                var hasher = try SHA256Hasher()
                hasher.update(item.bytes)
                small.append((index, hasher.finish()))
            } else {
                infos[index] = try put(item.bytes, contentType: item.contentType, referencedBy: document)
            }
        }
        if !small.isEmpty || !operations.isEmpty {
            let created = nowMilliseconds()
            let chunkSize = UInt32(tuning.chunkSize)
            let stored = try storage.withAdapter { adapter -> [BlobInfo] in
                var batch: [StorageOperation] = []
                var records: [BlobHash: BlobIndexRecord] = [:]
                var infos: [BlobInfo] = []
                var referrers: [BlobHash: Set<[UInt8]>] = [:]
                for (index, hash) in small {
                    let item = items[index]
                    if let record = try records[hash] ?? Self.indexRecord(hash, in: adapter) {
                        infos.append(record.info(hash))
                    } else {
                        var generator = SystemRandomNumberGenerator()
                        let uploadID = (0..<BlobIndexRecord.uploadIDByteCount).map { _ in
                            UInt8.random(in: 0...255, using: &generator)
                        }
                        let record = BlobIndexRecord(
                            content: .chunks(uploadID: uploadID, chunkSize: chunkSize), size: UInt64(item.bytes.count),
                            createdMilliseconds: created, contentType: item.contentType)
                        if !item.bytes.isEmpty {
                            batch.append(.append(.blobChunks, key: HexText.encode(uploadID), sequence: 1, value: item.bytes))
                        }
                        batch.append(.put(.blobIndex, key: hash.hex, value: record.encoded()))
                        records[hash] = record
                        infos.append(record.info(hash))
                    }
                    if document != nil, referrers[hash] == nil { referrers[hash] = try Self.referrers(of: hash, in: adapter) }
                }
                if let document = document?.rawValue {
                    // One write of the document's list for the whole batch.
                    var hashes = try Self.references(of: document, in: adapter)
                    var changed = false
                    for (hash, var documents) in referrers {
                        changed = hashes.insert(hash).inserted || changed
                        if documents.insert(Array(document.utf8)).inserted {
                            batch.append(BlobReferenceLists.storeDocuments(documents, blob: hash))
                        }
                    }
                    if changed { batch.append(BlobReferenceLists.storeHashes(hashes, document: document)) }
                }
                try adapter.commit(batch + operations)
                return infos
            }
            for (position, entry) in small.enumerated() { infos[entry.index] = stored[position] }
        }
        return infos.map { $0! }
    }
}
