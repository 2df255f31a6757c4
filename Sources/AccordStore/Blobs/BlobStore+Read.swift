public import AccordCRDT

extension BlobStore {
    /// The whole content, verified (size and SHA-256). It is held in memory, so keep
    /// this for small blobs; stream large ones with ``export(_:toFile:)`` or
    /// ``forEachChunk(of:_:)``. `BLOB_NOT_FOUND` when not stored, `STORAGE_CORRUPT`
    /// when the stored bytes do not match the hash.
    public func get(_ hash: BlobHash) throws(AccordError) -> [UInt8] {
        var content: [UInt8] = []
        _ = try stream(hash) { chunk throws(AccordError) in content += chunk }
        return content
    }

    /// Writes the content to `path`, verified, with memory bounded by one batch of
    /// chunks. The bytes go to a temporary file in the same directory, which is synced
    /// and renamed over `path` only after the SHA-256 matched: on any error nothing
    /// appears at `path` (an existing file there is left as it was). `IO_ERROR` when
    /// the file cannot be written.
    @discardableResult
    public func export(_ hash: BlobHash, toFile path: String) throws(AccordError) -> BlobInfo {
        guard try exists(hash) else { throw Self.notFound(hash) }
        let writer = try BlobFileWriter(destination: path)
        do throws(AccordError) {
            let info = try stream(hash) { chunk throws(AccordError) in try writer.write(chunk) }
            try writer.commit()
            return info
        } catch {
            writer.discard()
            throw error
        }
    }

    /// Calls `body` with each chunk of the content in order, then checks the size and
    /// SHA-256. The chunks are unverified until this returns: when it throws
    /// `STORAGE_CORRUPT`, discard what `body` received. An error thrown by `body`
    /// stops the read and is rethrown as is.
    @discardableResult
    public func forEachChunk(of hash: BlobHash, _ body: ([UInt8]) throws -> Void) throws -> BlobInfo {
        var bodyError: (any Error)?
        do {
            return try stream(hash) { chunk throws(AccordError) in
                do {
                    try body(chunk)
                } catch {
                    bodyError = error
                    throw AccordError(.invalidArgument, "stopped by the chunk handler")
                }
            }
        } catch {
            if let bodyError { throw bodyError }
            throw error
        }
    }

    /// Reads the chunks batch by batch (one hold of the storage lock each), checking
    /// every chunk's sequence and length against the index record and hashing as it
    /// goes; the digest is compared once all `size` bytes went through.
    func stream(_ hash: BlobHash, _ body: ([UInt8]) throws(AccordError) -> Void) throws(AccordError) -> BlobInfo {
        guard let record = try storage.withAdapter({ adapter in try Self.indexRecord(hash, in: adapter) }) else {
            throw Self.notFound(hash)
        }
        var hasher = try SHA256Hasher()
        let (logKey, chunkCount, batchSize) = (record.chunkLogKey, record.chunkCount, tuning.chunksPerBatch)
        var sequence: UInt64 = 0
        while sequence < chunkCount {
            let (after, limit) = (sequence, Int(min(UInt64(batchSize), chunkCount - sequence)))
            let entries = try storage.withAdapter { adapter in
                try adapter.readLog(.blobChunks, key: logKey, after: after, limit: limit)
            }
            if entries.isEmpty { try missingChunk(sequence + 1, of: hash, record: record) }
            for entry in entries {
                sequence += 1
                guard entry.sequence == sequence else {
                    throw Self.corrupt(hash, "chunk \(sequence) is missing (found \(entry.sequence))")
                }
                guard entry.value.count == record.expectedLength(ofChunk: sequence) else {
                    throw Self.corrupt(
                        hash, "chunk \(sequence) has \(entry.value.count) bytes, not \(record.expectedLength(ofChunk: sequence))")
                }
                hasher.update(entry.value)
                try body(entry.value)
            }
        }
        guard hasher.finish() == hash else { throw Self.corrupt(hash, "the content does not match its SHA-256") }
        return record.info(hash)
    }

    /// A chunk log that ends early: the blob was deleted (or deleted and stored again)
    /// between two batches, which is `BLOB_NOT_FOUND`, or its content is damaged.
    private func missingChunk(_ sequence: UInt64, of hash: BlobHash, record: BlobIndexRecord) throws(AccordError) -> Never {
        let current = try storage.withAdapter { adapter in try Self.indexRecord(hash, in: adapter) }
        guard current?.uploadID == record.uploadID else {
            throw AccordError(.blobNotFound, "blob \(hash) was deleted while being read", details: ["blob": hash.hex])
        }
        throw Self.corrupt(hash, "chunk \(sequence) of \(record.chunkCount) is missing")
    }

    static func corrupt(_ hash: BlobHash, _ why: String) -> AccordError {
        AccordError(.storageCorrupt, "blob \(hash) is damaged: \(why)", details: ["blob": hash.hex])
    }
}
