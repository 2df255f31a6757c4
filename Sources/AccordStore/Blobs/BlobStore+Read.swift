public import AccordCRDT

extension BlobStore {
    /// The whole content, verified (size and SHA-256). It is held in memory, so keep
    /// this for small blobs; stream large ones with ``export(_:toFile:)`` or
    /// ``forEachChunk(of:_:)``. `BLOB_NOT_FOUND` when not stored, `STORAGE_CORRUPT`
    /// when the stored bytes do not match the hash.
    public func get(_ hash: BlobHash) throws(AccordError) -> [UInt8] {
        var content: [UInt8] = []
        _ = try stream(hash) { piece throws(AccordError) in content += piece }
        return content
    }

    /// Writes the content to `path`, verified, with memory bounded by one piece (one
    /// batch of chunks for content in chunks). The bytes go to a temporary file in the same directory, which is synced
    /// and renamed over `path` only after the SHA-256 matched: on any error nothing
    /// appears at `path` (an existing file there is left as it was). `IO_ERROR` when
    /// the file cannot be written.
    @discardableResult
    public func export(_ hash: BlobHash, toFile path: String) throws(AccordError) -> BlobInfo {
        guard try exists(hash) else { throw Self.notFound(hash) }
        let writer = try BlobFileWriter(destination: path)
        do throws(AccordError) {
            let info = try stream(hash) { piece throws(AccordError) in try writer.write(piece) }
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
            return try stream(hash) { piece throws(AccordError) in
                do {
                    try body([UInt8](piece))
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

    /// Calls `body` with the content piece by piece, verified as a whole once all of it
    /// went through: from the content file (``streamFile(_:record:file:_:)``) or from
    /// the chunks. The record is read, and the file opened, under one hold of the
    /// lock, so a delete cannot come between them; reading an open file needs no lock.
    func stream(
        _ hash: BlobHash, _ body: (UnsafeRawBufferPointer) throws(AccordError) -> Void
    ) throws(AccordError) -> BlobInfo {
        let directory = directory
        let (record, file) = try storage.withAdapter { adapter throws -> (BlobIndexRecord, PosixFile?) in
            guard let record = try Self.indexRecord(hash, in: adapter) else { throw Self.notFound(hash) }
            guard case .file(let sealed) = record.content else { return (record, nil) }
            return (record, try Self.openContentFile(hash, sealed: sealed, in: directory))
        }
        if let file { return try streamFile(hash, record: record, file: file, body) }
        return try streamChunks(hash, record: record, body)
    }

    /// Reads the chunks batch by batch (one hold of the storage lock each), checking
    /// every chunk's sequence and length against the index record and hashing as it
    /// goes; the digest is compared once all `size` bytes went through.
    private func streamChunks(
        _ hash: BlobHash, record: BlobIndexRecord, _ body: (UnsafeRawBufferPointer) throws(AccordError) -> Void
    ) throws(AccordError) -> BlobInfo {
        guard let logKey = record.chunkLogKey, let (chunkSize, chunkCount) = record.chunkLayout else {
            throw Self.corrupt(hash, "the index record names no chunks")
        }
        var hasher = try SHA256Hasher()
        let batchSize = tuning.chunksPerBatch
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
                let expected = Int(min(UInt64(chunkSize), record.size - (sequence - 1) * UInt64(chunkSize)))
                guard entry.value.count == expected else {
                    throw Self.corrupt(hash, "chunk \(sequence) has \(entry.value.count) bytes, not \(expected)")
                }
                hasher.update(entry.value)
                try entry.value.withBytes { (bytes) throws(AccordError) in try body(bytes) }
            }
        }
        guard hasher.finish() == hash else { throw Self.corrupt(hash, "the content does not match its SHA-256") }
        return record.info(hash)
    }

    /// A chunk log that ends early: the blob was deleted (or deleted and stored again)
    /// between two batches, which is `BLOB_NOT_FOUND`, or its content is damaged.
    private func missingChunk(_ sequence: UInt64, of hash: BlobHash, record: BlobIndexRecord) throws(AccordError) -> Never {
        let current = try storage.withAdapter { adapter in try Self.indexRecord(hash, in: adapter) }
        guard current?.content == record.content else {
            throw AccordError(.blobNotFound, "blob \(hash) was deleted while being read", details: ["blob": hash.hex])
        }
        throw Self.corrupt(hash, "chunk \(sequence) of \(record.chunkLayout?.count ?? 0) is missing")
    }

    static func corrupt(_ hash: BlobHash, _ why: String) -> AccordError {
        AccordError(.storageCorrupt, "blob \(hash) is damaged: \(why)", details: ["blob": hash.hex])
    }
}
