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
    }

    /// Folds a document's log into a new snapshot in one atomic batch (flushing first),
    /// whatever the thresholds say. Automatic compaction after a flush uses the
    /// thresholds in ``Options``.
    @discardableResult
    public func compact(_ id: DocumentID) throws(AccordError) -> CompactionResult {
        writeLock.lock()
        defer { writeLock.unlock() }
        try checkOpen()
        try flush()
        let content = try readContent(id)
        guard !content.log.isEmpty else { return .nothingToCompact }
        let doc = Doc(gc: options.garbageCollectOnCompaction)
        try Self.replay(content, into: doc)
        guard !doc.hasPendingUpdates else {
            withLock { _ = compactionBlocked.insert(id) }
            return .skippedPendingStructs
        }
        let snapshot = doc.encodeStateAsUpdate()
        var metadata = content.metadata
        metadata.snapshotSequence = metadata.lastSequence
        metadata.snapshotBytes = snapshot.count
        metadata.logBytes = 0
        metadata.logCount = 0
        try commitMetadata(metadata, extra: [
            .put(DocumentCategories.snapshot, key: id.rawValue, value: snapshot),
            .truncateLog(DocumentCategories.log, key: id.rawValue, through: metadata.lastSequence),
        ])
        notify(DocumentChange(id: id, kind: .compacted))
        return .compacted(snapshotBytes: snapshot.count)
    }

    /// Compacts the documents of a flush that passed the thresholds. The updates are
    /// already durable, so a failed compaction loses nothing; it is retried after the
    /// next flush of the document.
    func compactIfNeeded(_ flushed: [DocumentMetadata]) {
        for metadata in flushed where options.needsCompaction(metadata) {
            if withLock({ compactionBlocked.contains(metadata.id) }) { continue }
            _ = try? compact(metadata.id)
        }
    }
}
