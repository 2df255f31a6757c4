import Foundation
public import AccordCRDT

/// Durable local storage for documents: per document a snapshot (an update v1 holding
/// the whole state up to a point) plus an append-only log of the updates made since.
///
/// **Durability promise.** ``append(_:to:origin:)`` buffers an update in memory and
/// returns at once; buffered updates are committed together (see ``Options``). When
/// ``flush()`` returns, every update appended before the call is durable: it survives
/// a crash of the process, a kill, and (with the default SQLite adapter, which commits
/// in WAL mode with `synchronous=FULL`) a power loss. Updates still buffered when the
/// process dies are lost, which is why a sync engine sends only what is durable and
/// ``DocumentChange`` notifications fire only after the commit.
///
/// **Loading** replays the snapshot and the log into a ``Doc`` (plus updates still in the
/// buffer, so a load reads its own writes). Missing or damaged records are
/// `STORAGE_CORRUPT` naming the document, never an empty document, and a failed load
/// writes nothing.
///
/// **Compaction** folds the log into a new snapshot in one atomic batch when the log
/// passes the thresholds in ``Options`` (on a background thread, below the editing
/// threads' priority, so appends go on meanwhile; entries appended during a fold stay in
/// the log). A log that only adds content after the snapshot is joined onto it byte for
/// byte (``concatenateUpdates(base:appending:)``); any other is replayed into a ``Doc``
/// and encoded, which collects deleted content, except while the document holds pending
/// structs (an update whose predecessor has not arrived), because that fold would drop
/// them; it resumes when a remote update arrives.
///
/// Thread safety: all methods may be called from any thread. Appends take a short lock;
/// writes to storage are serialized; the adapter has one owner (``SerialStorage``).
public final class DocumentStore: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: every mutable property below is read and
    // written only while `lock` is held; storage writes happen only while `writeLock`
    // is held (always taken before `lock`, never after), and the adapter is reached
    // only through `storage`, which has a lock of its own.

    /// The origin to give ``Doc/applyUpdate(_:origin:)`` for updates that came from the
    /// server or a peer: attached documents log them but do not queue them for sending.
    public static let remoteOrigin = Origin("accord.remote")

    public let storage: SerialStorage
    public let options: Options

    let lock = NSLock()
    let writeLock = NSRecursiveLock()

    // Guarded by `lock`.
    var buffer: [BufferedUpdate] = []
    var bufferedBytes = 0
    /// Documents with local updates taken from the buffer by a commit that has not yet
    /// updated the metadata: still unacknowledged, though in neither place.
    var committingLocal: [DocumentID: Int] = [:]
    var metadataCache: [DocumentID: DocumentMetadata] = [:]
    /// The last sequence given to each resident document appended to since the store
    /// opened; an entry is removed when the document is evicted or deleted.
    var assignedSequence: [DocumentID: UInt64] = [:]
    var flushScheduled = false
    /// A commit asked for by an append that reached a threshold has not yet taken the buffer.
    var thresholdCommitRequested = false
    var deferredError: AccordError?
    /// Why an attached document's update could not be appended (see StoredDocument).
    var droppedAppendError: AccordError?
    var isClosed = false
    var observers: [Int: @Sendable (DocumentChange) -> Void] = [:]
    var nextObserverID = 0
    /// Documents whose compaction was skipped for pending structs, until a remote update arrives.
    var compactionBlocked: Set<DocumentID> = []
    /// How many ``StoredDocument``s of each document are open (``ClientLease``).
    var openLeases: [DocumentID: Int] = [:]
    /// Documents with a compaction queued or running.
    var compactionsRunning: Set<DocumentID> = []
    /// Per document, the start of its log that an automatic fold found to only add
    /// content after the snapshot, and left in place (``CompactionResult/keptJoinableLog``).
    var joinableLogs: [DocumentID: JoinableLog] = [:]
    /// Runs automatic compactions one at a time, off the thread that flushed.
    let compactionWorker = CompactionWorker()
    /// How the folds built their snapshots (``compactionCounts``).
    var foldCounts = CompactionCounts()

    /// An update waiting in memory for the next commit.
    struct BufferedUpdate {
        var id: DocumentID
        var sequence: UInt64
        var bytes: [UInt8]
        /// Made on this device (kept for sending), as opposed to received.
        var isLocal: Bool
    }

    public init(storage: SerialStorage, options: Options = Options()) {
        self.storage = storage
        self.options = options
    }

    /// A store in the SQLite file at `path`, created if missing.
    public convenience init(path: String, options: Options = Options()) throws(AccordError) {
        self.init(storage: try SerialStorage(path: path), options: options)
    }

    // MARK: Creating and listing

    /// Adds an empty document. `DOCUMENT_EXISTS` if the id is taken.
    /// - Parameter created: the creation time to record instead of now (an import
    ///   restoring a document from a bundle keeps the time it was first created).
    @discardableResult
    public func create(
        _ id: DocumentID, title: String = "", tags: [String] = [], localOnly: Bool = false, created: Date? = nil
    ) throws(AccordError) -> DocumentMetadata {
        writeLock.lock()
        defer { writeLock.unlock() }
        try checkOpen()
        if try readMetadata(id) != nil {
            throw AccordError(.documentExists, "document \(id) already exists", details: ["document": id.rawValue])
        }
        var metadata = DocumentMetadata(id: id, title: title, tags: tags, localOnly: localOnly, now: options.now())
        if let created { metadata.created = created }
        let record = try metadata.encoded()
        try storage.withAdapter { try $0.commit([.put(DocumentCategories.metadata, key: id.rawValue, value: record)]) }
        withLock { metadataCache[id] = metadata }
        notify(DocumentChange(id: id, kind: .metadataChanged))
        return metadata
    }

    /// Whether the store has a document with this id (resident or evicted).
    public func contains(_ id: DocumentID) throws(AccordError) -> Bool {
        try readMetadata(id) != nil
    }

    /// The metadata of one document; `DOCUMENT_NOT_FOUND` if there is none.
    public func metadata(_ id: DocumentID) throws(AccordError) -> DocumentMetadata {
        guard let metadata = try readMetadata(id) else { throw Self.notFound(id) }
        return metadata
    }

    /// Every document's metadata, ordered by id.
    public func documents() throws(AccordError) -> [DocumentMetadata] {
        let keys = try storage.withAdapter { try $0.keys(in: DocumentCategories.metadata) }
        var result: [DocumentMetadata] = []
        for key in keys {
            let id = try Self.storedID(key)
            if let metadata = try readMetadata(id) { result.append(metadata) }
        }
        return result
    }

    /// Changes the title, tags, `localOnly` or `lastSyncTime` of a document. Changes to
    /// the bookkeeping fields are ignored (the store owns them).
    public func updateMetadata(_ id: DocumentID, _ change: (inout DocumentMetadata) -> Void) throws(AccordError) {
        writeLock.lock()
        defer { writeLock.unlock() }
        try checkOpen()
        let current = try metadata(id)
        var edited = current
        change(&edited)
        var updated = current
        updated.title = edited.title
        updated.tags = edited.tags
        updated.localOnly = edited.localOnly
        updated.lastSyncTime = edited.lastSyncTime
        updated.updated = options.now()
        try commitMetadata(updated, extra: [])
        notify(DocumentChange(id: id, kind: .metadataChanged))
    }

    // MARK: Observing

    /// Calls `handler` after each change is durable. Handlers run on the thread that
    /// committed the change (a background flush runs on a Dispatch queue); keep them short.
    public func observeChanges(_ handler: @escaping @Sendable (DocumentChange) -> Void) -> StoreSubscription {
        let id = withLock {
            let id = nextObserverID
            nextObserverID += 1
            observers[id] = handler
            return id
        }
        return StoreSubscription { [weak self] in self?.withLock { _ = self?.observers.removeValue(forKey: id) } }
    }

    /// The same changes as an `AsyncStream`, for `for await change in store.changes()`.
    public func changes() -> AsyncStream<DocumentChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: DocumentChange.self)
        let subscription = observeChanges { continuation.yield($0) }
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }

    // MARK: Closing

    /// Flushes, waits for background compactions, and stops accepting calls
    /// (`STORE_CLOSED` afterwards).
    public func close() throws(AccordError) {
        try flush()
        waitForCompactions()
        writeLock.lock()
        defer { writeLock.unlock() }
        withLock { isClosed = true }
    }

    // MARK: Shared helpers

    func withLock<T>(_ body: () throws(AccordError) -> T) throws(AccordError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    func checkOpen() throws(AccordError) {
        if withLock({ isClosed }) { throw AccordError(.storeClosed, "the document store is closed") }
    }

    func notify(_ change: DocumentChange) {
        let handlers = withLock { Array(observers.values) }
        for handler in handlers { handler(change) }
    }

    /// The cached metadata, or the stored record (cached on the way), or nil.
    func readMetadata(_ id: DocumentID) throws(AccordError) -> DocumentMetadata? {
        if let cached = withLock({ metadataCache[id] }) { return cached }
        guard let bytes = try storage.withAdapter({ try $0.read(DocumentCategories.metadata, key: id.rawValue) }) else {
            return nil
        }
        let metadata = try DocumentMetadata.decode(bytes, id: id)
        withLock { metadataCache[id] = metadata }
        return metadata
    }

    /// Commits `metadata` with `extra` operations in one batch, then caches it.
    /// Caller holds `writeLock`.
    func commitMetadata(_ metadata: DocumentMetadata, extra: [StorageOperation]) throws(AccordError) {
        let record = try metadata.encoded()
        try storage.withAdapter {
            try $0.commit(extra + [.put(DocumentCategories.metadata, key: metadata.id.rawValue, value: record)])
        }
        withLock { metadataCache[metadata.id] = metadata }
    }

    static func notFound(_ id: DocumentID) -> AccordError {
        AccordError(.documentNotFound, "no document \(id) in the store", details: ["document": id.rawValue])
    }

    static func corrupt(_ id: DocumentID, _ message: String) -> AccordError {
        AccordError(.storageCorrupt, "document \(id): \(message)", details: ["document": id.rawValue])
    }

    /// Stored ids are read with the rule they were written under (see `DocumentID(stored:)`).
    static func storedID(_ key: String) throws(AccordError) -> DocumentID {
        do {
            return try DocumentID(stored: key)
        } catch {
            throw AccordError(.storageCorrupt, "a stored document has an invalid id")
        }
    }
}
