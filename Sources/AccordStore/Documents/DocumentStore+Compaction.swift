import Foundation
public import AccordCRDT

extension DocumentStore {
    /// What ``compact(_:)`` did.
    public enum CompactionResult: Sendable, Hashable {
        /// The log was folded into a snapshot of this many bytes.
        case compacted(snapshotBytes: Int)
        /// The log was empty; nothing to fold.
        case nothingToCompact
        /// The document holds pending structs (an update whose predecessor has not
        /// arrived); folding now would drop them, so the log was left as it is.
        case skippedPendingStructs
        /// Another compaction, an eviction or a restore changed the snapshot meanwhile.
        case superseded
        /// Automatic compaction only, when the log passed the size rule but not the
        /// entry limit: the log only adds content after the snapshot (a batch of new
        /// records, a paste), so the fold would write the same structs again, byte for
        /// byte (``updatesJoin(base:appending:)``), and loading costs the same either
        /// way. It is left as it is, and counted as snapshot by the size rule from then
        /// on; the entry limit still folds it.
        case keptJoinableLog
    }

    /// How much of a document's log, from its start, was found to only add content
    /// after the snapshot of `snapshotSequence` (of that `incarnation` of the document).
    struct JoinableLog {
        var incarnation: UInt64
        var snapshotSequence: UInt64
        var bytes: Int
    }

    /// Folds a document's log into a new snapshot in one atomic batch (flushing first),
    /// whatever the thresholds say. Automatic compaction after a flush uses the
    /// thresholds in ``Options``.
    @discardableResult
    public func compact(_ id: DocumentID) throws(AccordError) -> CompactionResult {
        try checkOpen()
        try flush()
        return try fold(id)
    }

    /// Reads the stored content, builds the snapshot without holding the write lock
    /// (appends and flushes go on meanwhile), then commits snapshot, truncation and
    /// metadata in one batch. Entries appended after the read stay in the log.
    ///
    /// In the background (`lowPriority`), replaying and encoding, which hold no lock,
    /// run below the editing threads' priority (see ``CompactionWorker``).
    ///
    /// `keepingJoinableLog`: leave a log that only adds content after the snapshot as it
    /// is (``CompactionResult/keptJoinableLog``).
    func fold(_ id: DocumentID, lowPriority: Bool = false, keepingJoinableLog: Bool = false) throws(AccordError) -> CompactionResult {
        if let shared = options.shared {
            // Another process may fold this document too: hold its fold lock from the
            // read to the commit, so no fold ever commits over a newer one.
            guard try shared.documentLock.tryLock(id) else { return .superseded }
            defer { shared.documentLock.unlock(id) }
            // Other processes append too: this process's note of a joinable log would not
            // cover their entries, so shared storage folds by the size rule as it reads.
            return try foldContent(id, lowPriority: lowPriority, keepingJoinableLog: false)
        }
        return try foldContent(id, lowPriority: lowPriority, keepingJoinableLog: keepingJoinableLog)
    }

    /// How many folds joined their log onto the snapshot without a replay, and how many replayed it.
    public struct CompactionCounts: Sendable, Hashable {
        public var joined: Int
        public var replayed: Int
        /// Automatic folds that found the log only adds content and left it (``CompactionResult/keptJoinableLog``).
        public var keptJoinable: Int

        public init(joined: Int = 0, replayed: Int = 0, keptJoinable: Int = 0) {
            self.joined = joined
            self.replayed = replayed
            self.keptJoinable = keptJoinable
        }
    }

    /// How the folds committed since the store opened built their snapshots (for tests and diagnostics).
    public var compactionCounts: CompactionCounts { withLock { foldCounts } }

    private func foldContent(_ id: DocumentID, lowPriority: Bool, keepingJoinableLog: Bool) throws(AccordError) -> CompactionResult {
        let content = try readContent(id)
        guard !content.log.isEmpty else { return .nothingToCompact }
        if keepingJoinableLog {
            let check = { @Sendable () throws(AccordError) -> Bool in try Self.logJoins(content) }
            if try lowPriority ? CompactionWorker.atLowPriority(check) : check() {
                // readContent checked that the log read holds the metadata's bytes.
                let joinable = JoinableLog(
                    incarnation: content.metadata.incarnation, snapshotSequence: content.metadata.snapshotSequence,
                    bytes: content.metadata.logBytes)
                withLock {
                    joinableLogs[id] = joinable
                    foldCounts.keptJoinable += 1
                }
                return .keptJoinableLog
            }
        }
        let gc = options.garbageCollectOnCompaction
        let build = { @Sendable () throws(AccordError) -> (snapshot: [UInt8], joined: Bool)? in
            if let joined = try Self.joinWithoutReplay(content) { return (joined, true) }
            let doc = Doc(gc: gc)
            try Self.replay(content, into: doc)
            return doc.hasPendingUpdates ? nil : (doc.encodeStateAsUpdate(), false)
        }
        guard let (snapshot, joined) = try lowPriority ? CompactionWorker.atLowPriority(build) : build() else {
            withLock { _ = compactionBlocked.insert(id) }
            return .skippedPendingStructs
        }

        writeLock.lock()
        defer { writeLock.unlock() }
        guard try commitFold(id, content, snapshot: snapshot) else { return .superseded }
        withLock {
            if joined { foldCounts.joined += 1 } else { foldCounts.replayed += 1 }
        }
        notify(DocumentChange(id: id, kind: .compacted))
        return .compacted(snapshotBytes: snapshot.count)
    }

    /// The snapshot with the log's updates joined onto it byte for byte, when the log
    /// only adds content after it (``concatenateUpdates(base:appending:)``): a records
    /// batch or a paste does. Replaying instead costs decoding and integrating every
    /// struct of the document, the snapshot's included, on every fold.
    static func joinWithoutReplay(_ content: StoredContent) throws(AccordError) -> [UInt8]? {
        concatenateUpdates(base: content.snapshot, appending: try logUpdates(content))
    }

    /// Whether ``joinWithoutReplay(_:)`` would join the log onto the snapshot.
    static func logJoins(_ content: StoredContent) throws(AccordError) -> Bool {
        updatesJoin(base: content.snapshot, appending: try logUpdates(content))
    }

    private static func logUpdates(_ content: StoredContent) throws(AccordError) -> [[UInt8]] {
        var updates: [[UInt8]] = []
        updates.reserveCapacity(content.log.count)
        for entry in content.log {
            updates.append(try LogEntryFormat.decode(entry.value, document: content.metadata.id, sequence: entry.sequence).update)
        }
        return updates
    }

    /// Commits a fold of `content` into `snapshot`; false when another compaction, an
    /// eviction or a restore changed the snapshot meanwhile. Caller holds `writeLock`.
    func commitFold(_ id: DocumentID, _ content: StoredContent, snapshot: [UInt8]) throws(AccordError) -> Bool {
        try checkOpen()
        if options.shared != nil { return try commitSharedFold(id, content, snapshot: snapshot) }
        guard var metadata = try readMetadata(id), metadata.isResident,
            metadata.incarnation == content.metadata.incarnation,
            metadata.snapshotSequence == content.metadata.snapshotSequence
        else { return false }
        let foldedThrough = content.log.last?.sequence ?? content.metadata.snapshotSequence
        metadata.snapshotSequence = foldedThrough
        metadata.snapshotBytes = snapshot.count
        metadata.logBytes -= content.log.reduce(0) { $0 + $1.value.count }
        metadata.logCount -= content.log.count
        // Local updates the server has not acknowledged leave the log with the fold;
        // their bytes move to the outbound log so they can still be resent.
        var operations: [StorageOperation] = []
        if !metadata.localOnly {
            for entry in content.log where entry.sequence > metadata.acknowledgedSequence {
                let (isLocal, update) = try LogEntryFormat.decode(entry.value, document: id, sequence: entry.sequence)
                if isLocal {
                    operations.append(.append(DocumentCategories.outbound, key: id.rawValue, sequence: entry.sequence, value: update))
                }
            }
        }
        operations += [
            .put(DocumentCategories.snapshot, key: id.rawValue, value: snapshot),
            .truncateLog(DocumentCategories.log, key: id.rawValue, through: foldedThrough),
        ]
        try commitMetadata(metadata, extra: operations)
        return true
    }

    /// Compacts the documents of a flush that passed the thresholds: on the store's
    /// compaction thread by default (see ``CompactionWorker``), so a burst of appends is
    /// not held up by a fold, or right away when ``Options/compactInBackground`` is off. The updates are
    /// already durable, so a failed compaction loses nothing; the next flush of the
    /// document tries again.
    ///
    /// A log that only adds content after the snapshot is not folded for its size alone
    /// (``CompactionResult/keptJoinableLog``): on `accord-bench records`, folding the
    /// growing document's batches of new records over and over (snapshots written, then
    /// copied into the database by SQLite's checkpoints) cost a tenth to a sixth of the time
    /// of inserting 100,000 records.
    func compactIfNeeded(_ flushed: [DocumentMetadata]) {
        for metadata in flushed {
            let id = metadata.id
            let start = withLock { () -> Bool in
                guard options.needsCompaction(metadata, joinableLogBytes: joinableLogBytes(metadata)),
                    !compactionBlocked.contains(id), !compactionsRunning.contains(id)
                else { return false }
                compactionsRunning.insert(id)
                return true
            }
            guard start else { continue }
            // Only the size rule leaves a joinable log alone: the entry limit folds it.
            let keeping = metadata.logCount < options.compactionMaxEntries
            let run: @Sendable () -> Void = { [self] in
                _ = try? fold(id, lowPriority: options.compactInBackground, keepingJoinableLog: keeping)
                withLock { _ = compactionsRunning.remove(id) }
            }
            if options.compactInBackground { compactionWorker.submit(run) } else { run() }
        }
    }

    /// How much of the log of `metadata`'s document an automatic fold found joinable
    /// onto its current snapshot (caller holds the lock).
    private func joinableLogBytes(_ metadata: DocumentMetadata) -> Int {
        guard let joinable = joinableLogs[metadata.id], joinable.incarnation == metadata.incarnation,
            joinable.snapshotSequence == metadata.snapshotSequence
        else { return 0 }
        return joinable.bytes
    }

    /// Returns when every background compaction started so far has finished.
    public func waitForCompactions() {
        compactionWorker.waitUntilIdle()
    }
}
