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
    func fold(_ id: DocumentID, lowPriority: Bool = false) throws(AccordError) -> CompactionResult {
        if let shared = options.shared {
            // Another process may fold this document too: hold its fold lock from the
            // read to the commit, so no fold ever commits over a newer one.
            guard try shared.documentLock.tryLock(id) else { return .superseded }
            defer { shared.documentLock.unlock(id) }
            return try foldContent(id, lowPriority: lowPriority)
        }
        return try foldContent(id, lowPriority: lowPriority)
    }

    /// How many folds joined their log onto the snapshot without a replay, and how many replayed it.
    public struct CompactionCounts: Sendable, Hashable {
        public var joined: Int
        public var replayed: Int

        public init(joined: Int = 0, replayed: Int = 0) {
            self.joined = joined
            self.replayed = replayed
        }
    }

    /// How the folds committed since the store opened built their snapshots (for tests and diagnostics).
    public var compactionCounts: CompactionCounts { withLock { foldCounts } }

    private func foldContent(_ id: DocumentID, lowPriority: Bool) throws(AccordError) -> CompactionResult {
        let content = try readContent(id)
        guard !content.log.isEmpty else { return .nothingToCompact }
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
        var updates: [[UInt8]] = []
        updates.reserveCapacity(content.log.count)
        for entry in content.log {
            updates.append(try LogEntryFormat.decode(entry.value, document: content.metadata.id, sequence: entry.sequence).update)
        }
        return concatenateUpdates(base: content.snapshot, appending: updates)
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
    func compactIfNeeded(_ flushed: [DocumentMetadata]) {
        for metadata in flushed where options.needsCompaction(metadata) {
            let id = metadata.id
            let start = withLock { () -> Bool in
                guard !compactionBlocked.contains(id), !compactionsRunning.contains(id) else { return false }
                compactionsRunning.insert(id)
                return true
            }
            guard start else { continue }
            let run: @Sendable () -> Void = { [self] in
                _ = try? fold(id, lowPriority: options.compactInBackground)
                withLock { _ = compactionsRunning.remove(id) }
            }
            if options.compactInBackground { compactionWorker.submit(run) } else { run() }
        }
    }

    /// Returns when every background compaction started so far has finished.
    public func waitForCompactions() {
        compactionWorker.waitUntilIdle()
    }
}
