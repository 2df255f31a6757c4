import AccordCRDT

/// One put into chunks in the adapter (adapters without a ``BlobDirectory``). Chunks are hashed as they arrive and committed
/// `chunksPerBatch` at a time under a fresh random upload id, each batch in its own
/// hold of the storage lock; ``finish(_:)`` then writes the index
/// record in one atomic batch, or drops the chunks when the content is already stored.
///
/// A blob that fits one batch is therefore written in a single commit, chunks and
/// index together. Until ``finish`` the upload id is registered in ``ActiveUploads``
/// so garbage collection leaves its chunks alone.
struct BlobUpload: BlobContentUpload {
    private let store: BlobStore
    private let logKey: String
    private let uploadID: [UInt8]
    private var hasher: SHA256Hasher
    private var size: UInt64 = 0
    private var nextSequence: UInt64 = 1
    /// The last sequence already committed (0: none).
    private var committedThrough: UInt64 = 0
    private var pending: [StorageOperation] = []

    init(store: BlobStore) throws(AccordError) {
        self.store = store
        hasher = try SHA256Hasher()
        var generator = SystemRandomNumberGenerator()
        uploadID = (0..<BlobIndexRecord.uploadIDByteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
        logKey = HexText.encode(uploadID)
        ActiveUploads.shared.insert(logKey)
    }

    var takesAnyPieceSize: Bool { false }

    /// Adds the next chunk; it must be full-sized unless it is the last one.
    mutating func append(_ piece: UnsafeRawBufferPointer) throws(AccordError) {
        let chunk = [UInt8](piece)
        hasher.update(chunk)
        size += UInt64(chunk.count)
        pending.append(.append(.blobChunks, key: logKey, sequence: nextSequence, value: chunk))
        nextSequence += 1
        if pending.count >= store.tuning.chunksPerBatch { try flush() }
    }

    private mutating func flush() throws(AccordError) {
        guard !pending.isEmpty else { return }
        let batch = pending
        try store.storage.withAdapter { adapter in try adapter.commit(batch) }
        committedThrough = nextSequence - 1
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes the index record (and the reference, if any) with the last chunks, or
    /// keeps the stored copy when the content is already there.
    mutating func finish(_ commit: BlobUploadCommit) throws(AccordError) -> BlobInfo {
        defer { ActiveUploads.shared.remove(logKey) }
        let hash = hasher.finish()
        try commit.check(hash: hash, size: size)
        let (contentType, document) = (commit.contentType, commit.reference)
        let record = BlobIndexRecord(
            content: .chunks(uploadID: uploadID, chunkSize: UInt32(store.tuning.chunkSize)), size: size,
            createdMilliseconds: store.nowMilliseconds(), contentType: contentType)
        let (pending, committedThrough, logKey) = (pending, committedThrough, logKey)
        return try store.storage.withAdapter { adapter in
            var batch: [StorageOperation]
            let info: BlobInfo
            if let existing = try BlobStore.indexRecord(hash, in: adapter) {
                // Same content already stored: keep the first copy, drop ours.
                batch = committedThrough > 0 ? [.deleteLog(.blobChunks, key: logKey)] : []
                info = existing.info(hash)
            } else {
                // Only a collection in another process can remove the chunks of a live
                // upload; never index content that is no longer all there. Collection
                // deletes whole logs, so a log still starting at 1 and ending at our last
                // committed chunk is whole.
                let last = try adapter.lastSequence(.blobChunks, key: logKey)
                let first = try adapter.readLog(.blobChunks, key: logKey, after: 0, limit: 1).first?.sequence
                let intact = committedThrough == 0 ? last == nil : (first == 1 && last == committedThrough)
                guard intact else {
                    throw AccordError(
                        .storageError, "the chunks of blob \(hash) were removed while it was being stored",
                        details: ["blob": hash.hex])
                }
                batch = pending + [.put(.blobIndex, key: hash.hex, value: record.encoded())]
                info = record.info(hash)
            }
            if let document { batch += try BlobStore.referenceAdditions(of: hash, document: document.rawValue, in: adapter) }
            batch += commit.alongWith
            try adapter.commit(batch)
            return info
        }
    }

    /// After a failure: removes the chunks committed so far (best effort; if this
    /// fails too, they are orphans for ``BlobStore/collectGarbage()``).
    func abandon() {
        defer { ActiveUploads.shared.remove(logKey) }
        guard committedThrough > 0 else { return }
        let logKey = logKey
        _ = try? store.storage.withAdapter { adapter in try adapter.commit([.deleteLog(.blobChunks, key: logKey)]) }
    }
}
