public import AccordCRDT

/// Storage that other processes write at the same time: a cluster of servers on one
/// PostgreSQL, each with its own ``DocumentStore`` on the same tables.
///
/// What changes in a store with ``DocumentStore/Options/shared`` set:
/// - **Numbering.** The adapter numbers each document's log itself (it must, for
///   ``DocumentStore/sharedLogCategory``: `PostgresStorageAdapter(sharedLogs:)`); the
///   sequence a store gives an append only orders its own appends, and the
///   ``DocumentChange/Kind/appended(_:)`` ranges it reports are in that local order.
/// - **The log is the record.** A flush writes log entries only, never the metadata's
///   counts (each process would overwrite the others'); a load reads the log, then the
///   metadata, then the snapshot, so a fold committed between the reads is never half
///   seen (a snapshot is always a superset of the entries a fold removed).
/// - **Folds** hold ``documentLock`` for the document from reading its content to
///   committing, so two processes never fold one document at once. A caller that must
///   check and create as one step across processes (the server's directory) holds it
///   too.
public struct SharedStorage: Sendable {
    public var documentLock: any SharedDocumentLock
    public init(documentLock: any SharedDocumentLock) { self.documentLock = documentLock }
}

/// A lock per document shared by every process on the storage (a PostgreSQL advisory
/// lock, for instance). Within one process it may be re-entrant: callers exclude each
/// other in-process by other means.
public protocol SharedDocumentLock: Sendable {
    /// Takes the lock without waiting; false when another process holds it.
    func tryLock(_ id: DocumentID) throws(AccordError) -> Bool
    /// Takes the lock, waiting for another process to release it.
    func lock(_ id: DocumentID) throws(AccordError)
    func unlock(_ id: DocumentID)
    /// The same kind of lock for a shared row that is not a document (a group's members,
    /// read, changed and written back by any process): names never meet document ids.
    func lock(named name: String) throws(AccordError)
    func unlock(named name: String)
}

extension DocumentStore {
    /// The category of documents' logs, for an adapter told which logs are shared.
    public static let sharedLogCategory = DocumentCategories.log

    /// The update in a stored entry of a document's log (as a cluster notice carries
    /// it), nil for bytes that are not one.
    public static func sharedLogUpdate(_ value: [UInt8]) -> [UInt8]? {
        try? LogEntryFormat.decode(value, document: DocumentID(stored: "entry"), sequence: 0).update
    }

    /// Updates stored for a document after a position of its shared log, and the
    /// position they reach.
    public struct SharedChanges: Sendable {
        /// Update v1 bytes to apply in order (a snapshot first when a fold removed
        /// entries past `after`; applying what a document already has changes nothing).
        public var updates: [[UInt8]]
        /// Every entry up to this sequence is in `updates` or was before `after`.
        public var through: UInt64
    }

    /// Loads a document of shared storage and says which log position it reflects, so a
    /// caller can follow later appends with ``sharedChanges(_:after:)``.
    public func loadShared(_ id: DocumentID, into doc: Doc = Doc()) throws(AccordError) -> (doc: Doc, through: UInt64) {
        try checkOpen()
        let buffered = withLock { buffer.filter { $0.id == id } }
        let content = try readSharedContent(id)
        try Self.replay(content, into: doc)
        for update in buffered {
            do {
                try doc.applyUpdate(update.bytes, origin: Self.storeOrigin)
            } catch {
                throw Self.corrupt(id, "buffered update does not apply: \(error.message)")
            }
        }
        return (doc, Self.position(of: content))
    }

    /// What other writers (and this one) stored for `id` after log position `after`.
    public func sharedChanges(_ id: DocumentID, after: UInt64) throws(AccordError) -> SharedChanges {
        try checkOpen()
        let raw = try storage.withAdapter { adapter -> (log: [StorageLogEntry], metadata: [UInt8]?, snapshot: [UInt8]?) in
            let log = try adapter.readLog(DocumentCategories.log, key: id.rawValue, after: after)
            guard let metadata = try adapter.read(DocumentCategories.metadata, key: id.rawValue) else { return (log, nil, nil) }
            // A fold past `after` removed entries this caller lacks: they are in the
            // snapshot, read after the log so it covers everything the log read missed.
            let decoded = try DocumentMetadata.decode(metadata, id: id)
            let snapshot = decoded.snapshotSequence > after
                ? try adapter.read(DocumentCategories.snapshot, key: id.rawValue) : nil
            return (log, metadata, snapshot)
        }
        guard let metadataBytes = raw.metadata else { throw Self.notFound(id) }
        let metadata = try DocumentMetadata.decode(metadataBytes, id: id)
        var updates: [[UInt8]] = []
        if let snapshot = raw.snapshot { updates.append(snapshot) }
        for entry in raw.log {
            updates.append(try LogEntryFormat.decode(entry.value, document: id, sequence: entry.sequence).update)
        }
        let content = StoredContent(metadata: metadata, snapshot: raw.snapshot, log: raw.log)
        return SharedChanges(updates: updates, through: max(after, Self.position(of: content)))
    }

    /// Drops what this process caches about `id` (another process deleted it, or
    /// changed its metadata), so the next call reads the storage.
    public func forgetCached(_ id: DocumentID) {
        withLock {
            metadataCache[id] = nil
            assignedSequence[id] = nil
        }
    }

    /// The log position a read reflects: its last entry, or the fold it saw.
    private static func position(of content: StoredContent) -> UInt64 {
        max(content.log.last?.sequence ?? 0, content.metadata.snapshotSequence)
    }

    /// Reads log, metadata and snapshot, in that order (see ``SharedStorage``). The
    /// counts in the metadata are not checked against the log: other writers append
    /// without updating them.
    func readSharedContent(_ id: DocumentID) throws(AccordError) -> StoredContent {
        let raw = try storage.withAdapter { adapter -> (metadata: [UInt8]?, snapshot: [UInt8]?, log: [StorageLogEntry]) in
            let log = try adapter.readLog(DocumentCategories.log, key: id.rawValue, after: 0)
            guard let metadata = try adapter.read(DocumentCategories.metadata, key: id.rawValue) else {
                return (nil, nil, [])
            }
            let snapshot = try adapter.read(DocumentCategories.snapshot, key: id.rawValue)
            return (metadata, snapshot, log)
        }
        guard let metadataBytes = raw.metadata else { throw Self.notFound(id) }
        let metadata = try DocumentMetadata.decode(metadataBytes, id: id)
        guard metadata.isResident else { throw Self.evicted(id) }
        if metadata.snapshotBytes > 0, raw.snapshot == nil { throw Self.corrupt(id, "the snapshot is missing") }
        return StoredContent(metadata: metadata, snapshot: raw.snapshot, log: raw.log)
    }

    /// Commits a fold on shared storage (caller holds `writeLock` and the fold lock):
    /// the stored metadata, read again, gets the new snapshot's position and size.
    func commitSharedFold(_ id: DocumentID, _ content: StoredContent, snapshot: [UInt8]) throws(AccordError) -> Bool {
        guard let bytes = try storage.withAdapter({ try $0.read(DocumentCategories.metadata, key: id.rawValue) }) else {
            return false
        }
        var metadata = try DocumentMetadata.decode(bytes, id: id)
        guard metadata.isResident, metadata.incarnation == content.metadata.incarnation,
            metadata.snapshotSequence == content.metadata.snapshotSequence
        else { return false }
        let foldedThrough = content.log.last?.sequence ?? content.metadata.snapshotSequence
        metadata.snapshotSequence = foldedThrough
        metadata.lastSequence = max(metadata.lastSequence, foldedThrough)
        metadata.snapshotBytes = snapshot.count
        metadata.logBytes = 0
        metadata.logCount = 0
        let record = try metadata.encoded()
        try storage.withAdapter {
            try $0.commit([
                .put(DocumentCategories.snapshot, key: id.rawValue, value: snapshot),
                .truncateLog(DocumentCategories.log, key: id.rawValue, through: foldedThrough),
                .put(DocumentCategories.metadata, key: id.rawValue, value: record),
            ])
        }
        // The cache keeps this process's own numbering (see SharedStorage); only the
        // counts that trigger the next fold start again.
        withLock {
            if var cached = metadataCache[id] {
                cached.snapshotSequence = min(foldedThrough, cached.lastSequence)
                cached.snapshotBytes = snapshot.count
                cached.logBytes = 0
                cached.logCount = 0
                metadataCache[id] = cached
            }
        }
        return true
    }
}
