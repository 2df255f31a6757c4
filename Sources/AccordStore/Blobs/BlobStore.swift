public import AccordCRDT
public import Foundation

/// Content-addressed storage for binary attachments, beside the documents: the index
/// and references in a ``SerialStorage``, the content in files in the storage's
/// ``BlobDirectory`` (`<database>.blobs` for SQLite), or in chunks in the storage when
/// it offers no directory (in memory, custom adapters). See ``StorageCategory/blobIndex``
/// for the layout.
///
/// A blob is named by the SHA-256 of its content (``BlobHash``), so storing the same
/// bytes twice keeps one copy. A put streams from a file with bounded memory: into a
/// content file that is synced and named before its index record is committed, so a
/// crash never leaves an index record without its content. Every read checks the size
/// and the SHA-256 before declaring success (`STORAGE_CORRUPT` naming the blob
/// otherwise).
///
/// The storage lock is held for short steps, never for a whole blob's bytes, so
/// documents stay usable while a large blob streams in or out. A put that is
/// interrupted (crash, error) leaves only unreferenced upload files or chunks, which
/// ``collectGarbage()`` removes.
///
/// Errors are ``AccordError``: `BLOB_NOT_FOUND`, `INVALID_ARGUMENT` (bad hash, content
/// type or document id), `IO_ERROR` (a file to read or write), `STORAGE_CORRUPT`,
/// `STORAGE_FULL`, and the storage's own codes. A call that fails changes nothing in
/// the store.
public final class BlobStore: Sendable {
    /// How content is cut and batched. The chunk size is also the piece a content file
    /// is read and written in (and sealed in). Measured on a 100 MB blob in chunks on
    /// SQLite (see `accord-bench`'s BlobBenchmark), chunk sizes from 1 to 4 MiB ran
    /// within noise of each other, 256 KiB was slower; the default keeps memory in
    /// flight at two batches of 8 MiB for chunks, one piece of 1 MiB for files.
    public struct Tuning: Sendable, Hashable {
        /// Bytes per chunk (the last chunk of a blob may be shorter), 4 KiB to 16 MiB.
        public var chunkSize: Int
        /// Chunks committed (or read) per hold of the storage lock, 1 to 1024. Memory
        /// in flight is about `chunkSize * chunksPerBatch` (content in chunks only).
        public var chunksPerBatch: Int
        /// Blobs of at most this many bytes stay in the storage (one chunk, committed
        /// with the index record) even when it offers a ``BlobDirectory``: a content
        /// file costs two syncs of its own (the file, then its directory) before the
        /// index commit, which for small blobs is most of a put's time. 0 (the default)
        /// puts every blob in a file; the sync client and server use
        /// ``smallBlobInlineLimit``. At most `chunkSize`.
        public var inlineLimit: Int

        /// The inline limit the sync client and `accord serve` use: 16 KiB, where the
        /// three syncs saved outweigh the database's write-twice cost.
        public static let smallBlobInlineLimit = 16 * 1024

        public init(chunkSize: Int = 1 << 20, chunksPerBatch: Int = 8, inlineLimit: Int = 0) {
            self.chunkSize = chunkSize
            self.chunksPerBatch = chunksPerBatch
            self.inlineLimit = inlineLimit
        }
    }

    /// The storage the blobs live in, possibly shared with a document store.
    public let storage: SerialStorage
    public let tuning: Tuning
    /// Where content goes: the storage's ``StorageAdapter/blobDirectory``, read once
    /// when the store is created; nil keeps it in chunks in the storage.
    public let directory: BlobDirectory?
    private let now: @Sendable () -> Date

    /// A blob store in `storage`. `now` stamps ``BlobInfo/created``; inject a fixed
    /// clock in tests. Use one `BlobStore` per storage at a time, or at least never
    /// run ``collectGarbage()`` from a second process while this one puts blobs.
    public init(
        storage: SerialStorage, tuning: Tuning = Tuning(), now: @escaping @Sendable () -> Date = { Date() }
    ) throws(AccordError) {
        guard (4096...(16 << 20)).contains(tuning.chunkSize) else {
            throw AccordError(.invalidArgument, "blob chunk size \(tuning.chunkSize) is outside 4 KiB ... 16 MiB")
        }
        guard (1...1024).contains(tuning.chunksPerBatch) else {
            throw AccordError(.invalidArgument, "blob chunks per batch \(tuning.chunksPerBatch) is outside 1 ... 1024")
        }
        guard (0...tuning.chunkSize).contains(tuning.inlineLimit) else {
            throw AccordError(.invalidArgument, "the blob inline limit \(tuning.inlineLimit) is outside 0 ... the chunk size")
        }
        self.storage = storage
        self.tuning = tuning
        self.now = now
        directory = try storage.withAdapter { adapter in adapter.blobDirectory }
    }

    /// Whether a blob of `size` bytes goes into chunks in the storage rather than a
    /// content file.
    func keepsInStorage(size: Int) -> Bool {
        directory == nil || (tuning.inlineLimit > 0 && size <= tuning.inlineLimit)
    }

    // MARK: Looking up

    /// The blob's size, content type and creation time, or nil when it is not stored.
    public func info(_ hash: BlobHash) throws(AccordError) -> BlobInfo? {
        try storage.withAdapter { adapter in try Self.indexRecord(hash, in: adapter)?.info(hash) }
    }

    /// Whether the blob is stored.
    public func exists(_ hash: BlobHash) throws(AccordError) -> Bool {
        try info(hash) != nil
    }

    /// Every stored blob, in ascending hash order.
    public func list() throws(AccordError) -> [BlobInfo] {
        try storage.withAdapter { adapter in
            try adapter.keys(in: .blobIndex).map { key in
                let hash = try Self.storedHash(key)
                guard let record = try Self.indexRecord(hash, in: adapter) else {
                    // The key was just listed under the same lock.
                    throw AccordError(.storageCorrupt, "blob \(key) vanished while listing", details: ["blob": key])
                }
                return record.info(hash)
            }
        }
    }

    // MARK: Deleting

    /// Removes a blob, its content and every reference to it: documents that
    /// referenced it no longer list it in ``blobs(referencedBy:)``. Deleting is an
    /// explicit act, so it wins over references; use ``collectGarbage()`` to remove
    /// only what nothing references. `BLOB_NOT_FOUND` when it is not stored.
    public func delete(_ hash: BlobHash) throws(AccordError) {
        try storage.withAdapter { adapter in
            guard let record = try Self.indexRecord(hash, in: adapter) else { throw Self.notFound(hash) }
            var batch: [StorageOperation] = [.delete(.blobIndex, key: hash.hex)]
            if let logKey = record.chunkLogKey { batch.append(.deleteLog(.blobChunks, key: logKey)) }
            batch += try Self.referenceRemovals(of: hash, in: adapter)
            try adapter.commit(batch)
            // After the commit, under the same lock: a crash in between leaves an
            // orphan file for collection, never a record without its file.
            if record.isFile { _ = try? directory?.removeFile(hash.hex) }
        }
    }

    // MARK: Shared helpers

    /// The index record of `hash`, validated, or nil.
    static func indexRecord(_ hash: BlobHash, in adapter: any StorageAdapter) throws -> BlobIndexRecord? {
        guard let bytes = try adapter.read(.blobIndex, key: hash.hex) else { return nil }
        return try BlobIndexRecord(decoding: bytes, blob: hash)
    }

    /// A hash read back from storage keys, where a bad one means damage, not bad input.
    static func storedHash(_ key: String) throws(AccordError) -> BlobHash {
        do {
            return try BlobHash(hex: key)
        } catch {
            throw AccordError(.storageCorrupt, "the blob index has a malformed key \(key.prefix(80))", details: ["blob": key])
        }
    }

    static func notFound(_ hash: BlobHash) -> AccordError {
        AccordError(.blobNotFound, "blob \(hash) is not in the store", details: ["blob": hash.hex])
    }

    /// Content types are printable ASCII (RFC 2045 tokens, parameters and spaces),
    /// 1 to 255 bytes, so they fit the index record and never carry control characters.
    static func isValidContentType(_ bytes: some Collection<UInt8>) -> Bool {
        (1...255).contains(bytes.count) && bytes.allSatisfy { (0x20...0x7e).contains($0) }
    }

    static func validateContentType(_ contentType: String) throws(AccordError) {
        guard isValidContentType(contentType.utf8) else {
            throw AccordError(
                .invalidArgument, "a blob content type is 1 to 255 printable ASCII characters",
                details: ["content_type": String(contentType.prefix(80))])
        }
    }

    /// Milliseconds since 1970 by the store's clock.
    func nowMilliseconds() -> Int64 {
        let seconds = now().timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 9e12 else { return 0 }
        return Int64((seconds * 1000).rounded())
    }
}
