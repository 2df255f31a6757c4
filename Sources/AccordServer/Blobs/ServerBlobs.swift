public import AccordCRDT
public import AccordStore
import Foundation

/// The server's blobs: content in a ``BlobStore`` in the documents' storage (files in
/// `<database>.blobs`, as on a client), each document's references in its reference
/// index, unfinished uploads (``BlobUploadRecord``) as files in ``uploadsDirectory``
/// with a record each, and the limits an upload must fit.
///
/// Handlers use it on the server's service thread; ``collect()`` runs on a background
/// queue. The storage lock orders what they share (see ``collect()``); the small
/// in-memory state (uploads streaming now, verified files) has its own lock.
public final class ServerBlobs: @unchecked Sendable {
    // @unchecked: the mutable state below is touched only with `lock` held.

    /// Limits and timings; the defaults are `accord serve`'s.
    public struct Limits: Sendable {
        /// Largest blob accepted (`--max-blob-bytes`).
        public var maxBlobBytes: Int64 = 1 << 30
        /// Bytes of blobs one user's documents may reference together, counted on each
        /// document's owner (`--blob-quota-per-user`); nil: no quota.
        public var quotaPerUser: Int64? = 10 << 30
        /// An unreferenced blob stays this long after it was stored or last released
        /// before a collection removes it.
        public var gracePeriodMilliseconds: UInt64 = 3_600_000
        /// An unfinished upload untouched this long is discarded by a collection.
        public var uploadExpiryMilliseconds: UInt64 = 86_400_000

        public init() {}
    }

    public let store: BlobStore
    public let limits: Limits
    /// Where unfinished uploads are written: a directory inside the blob directory by
    /// default, so finishing one is a rename. Nil when the storage has no directory and
    /// none was given: uploads are then refused (`STORAGE_ERROR`).
    public let uploadsDirectory: String?
    let directory: DocumentDirectory
    let now: @Sendable () -> UInt64

    private let lock = NSLock()
    /// Upload keys with a request streaming into them now.
    private var streaming: Set<String> = []
    /// Per blob, the identity of the content file as it was when it last hashed right.
    private var verifiedFiles: [BlobHash: [Int64]] = [:]
    private static let maxVerifiedFiles = 100_000
    /// Blob sizes seen by quota checks. A hash names one content, so its size never
    /// changes and an entry never goes stale; the map is only bounded.
    private var knownSizes: [BlobHash: Int64] = [:]
    /// Small uploads being received (held in memory, no upload record): upload key →
    /// owner and size, counted against the quota as an unfinished upload's record is.
    private var smallUploads: [String: (owner: String, bytes: Int64)] = [:]
    private static let maxKnownSizes = 1_000_000

    static let uploadsCategory = StorageCategory("server.blob.uploads")
    static let releasedCategory = StorageCategory("server.blob.released")

    /// - Parameters:
    ///   - uploadsDirectory: nil puts unfinished uploads in `.resumable` inside the
    ///     storage's blob directory.
    ///   - now: milliseconds since 1970; tests inject a clock to step past the grace period.
    public init(
        directory: DocumentDirectory, limits: Limits = Limits(), uploadsDirectory: String? = nil,
        now: @escaping @Sendable () -> UInt64 = { UInt64(Date().timeIntervalSince1970 * 1000) }
    ) throws(AccordError) {
        store = try BlobStore(
            storage: directory.documents.storage, tuning: BlobStore.Tuning(inlineLimit: BlobStore.Tuning.smallBlobInlineLimit))
        self.directory = directory
        self.limits = limits
        self.uploadsDirectory = uploadsDirectory ?? store.directory.map { $0.path + "/.resumable" }
        self.now = now
    }

    /// The size of a stored blob, from memory when a quota check saw it before; nil
    /// when it is not stored.
    func size(of hash: BlobHash) throws(AccordError) -> Int64? {
        lock.lock()
        let known = knownSizes[hash]
        lock.unlock()
        if let known { return known }
        guard let size = try store.info(hash)?.size else { return nil }
        lock.lock()
        defer { lock.unlock() }
        if knownSizes.count >= Self.maxKnownSizes { knownSizes.removeAll(keepingCapacity: true) }
        knownSizes[hash] = size
        return size
    }

    /// The sizes of `hashes` added up (blobs no longer stored count 0): those seen
    /// before from memory under one lock, the others as ``size(of:)`` finds them.
    func totalSize(of hashes: [BlobHash]) throws(AccordError) -> Int64 {
        var total: Int64 = 0
        var unknown: [BlobHash] = []
        lock.lock()
        for hash in hashes {
            if let known = knownSizes[hash] { total += known } else { unknown.append(hash) }
        }
        lock.unlock()
        for hash in unknown { total += try size(of: hash) ?? 0 }
        return total
    }

    /// Reserves a small upload's bytes against its owner's quota until it ends.
    func reserveSmallUpload(_ key: String, owner: String, bytes: Int64) {
        lock.lock()
        defer { lock.unlock() }
        smallUploads[key] = (owner, bytes)
    }

    func releaseSmallUpload(_ key: String) {
        lock.lock()
        defer { lock.unlock() }
        smallUploads[key] = nil
    }

    /// Bytes of `owner`'s small uploads in progress, except `excludedKey`'s.
    func smallUploadBytes(of owner: String, excluding excludedKey: String?) -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        return smallUploads.reduce(0) { total, entry in
            entry.value.owner == owner && entry.key != excludedKey ? total + entry.value.bytes : total
        }
    }

    // MARK: Uploads streaming now

    /// Marks an upload as streaming; false when another request streams into it.
    func beginStreaming(_ key: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return streaming.insert(key).inserted
    }

    func endStreaming(_ key: String) {
        lock.lock()
        defer { lock.unlock() }
        streaming.remove(key)
    }

    func isStreaming(_ key: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return streaming.contains(key)
    }

    // MARK: Verified content files

    /// Whether the content file hashed right while it had this identity.
    func wasVerified(_ hash: BlobHash, identity: [Int64]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return verifiedFiles[hash] == identity
    }

    func rememberVerified(_ hash: BlobHash, identity: [Int64]?) {
        lock.lock()
        defer { lock.unlock() }
        if verifiedFiles.count >= Self.maxVerifiedFiles { verifiedFiles.removeAll() }
        verifiedFiles[hash] = identity
    }

    // MARK: Releases (for the grace period)

    /// Notes that `hash` just lost a reference, so a collection keeps it for the grace
    /// period from now even if it was stored long ago.
    func noteReleased(_ hash: BlobHash) throws(AccordError) {
        let stamp = Array(String(now()).utf8)
        try store.storage.withAdapter { adapter in
            try adapter.commit([.put(Self.releasedCategory, key: hash.hex, value: stamp)])
        }
    }

    /// The document's owner, whose quota its blobs count against.
    func owner(of id: DocumentID) throws(AccordError) -> String? {
        try directory.access.access(id)?.owner
    }
}
