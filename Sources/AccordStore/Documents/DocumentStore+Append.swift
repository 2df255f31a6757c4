import Foundation
public import AccordCRDT

extension DocumentStore {
    /// Appends one update (Yjs update v1) to a document's log and returns its sequence
    /// number. The update is buffered; it is durable once a flush has committed it
    /// (see the durability promise on ``DocumentStore``). Local updates of a synced
    /// document are also kept for sending until ``acknowledge(_:through:)``.
    ///
    /// The bytes are not decoded here (that would cost a decode per keystroke); a
    /// ``Doc``'s `onUpdate` only produces valid updates. Use ``appendValidated(_:to:origin:)``
    /// for bytes from elsewhere.
    @discardableResult
    public func append(_ update: [UInt8], to id: DocumentID, isLocal: Bool = true) throws(AccordError) -> UInt64 {
        // The first append to a document reads its metadata into the cache; after that
        // an append is one hold of the lock and one lookup of the id.
        var queued = try withLock { () throws(AccordError) in try enqueue(update, to: id, isLocal: isLocal) }
        if queued == nil {
            _ = try metadata(id)
            queued = try withLock { () throws(AccordError) in try enqueue(update, to: id, isLocal: isLocal) }
        }
        // Still nil: deleted since the metadata was read.
        guard let queued else { throw Self.notFound(id) }
        if queued.fill == .overflowing {
            // Far past the threshold (commits cannot keep up): wait for the write lock
            // and commit here, so memory stays bounded.
            flushRecordingFailure()
        } else if queued.commitNow {
            // At the threshold: commit on another thread, so the editing thread only
            // buffers (committing a thousand keystrokes, SQLite inserts and an fsync,
            // was most of its time). A failure keeps everything buffered for the next
            // flush() to report.
            DispatchQueue.global(qos: .userInitiated).async { [weak self] in self?.backgroundFlush() }
        } else if queued.startTimer, let delay = options.flushDelay {
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            // `flushScheduled` stays set until a flush takes the buffer, not just until
            // the timer fires: while a commit is in flight, one flush waits behind it
            // and takes everything that gathered meanwhile. (Clearing it when the timer
            // fired let every append during a slow commit start another timer, each
            // parking a global-queue worker on the write lock, up to one per 10 ms
            // behind a 500 ms PostgreSQL commit, all but the first to find the buffer
            // empty.)
            DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in
                self?.backgroundFlush()
            }
        }
        return queued.sequence
    }

    /// What ``enqueue(_:to:isLocal:)`` did, and which commit the caller is to start.
    private struct Queued {
        var sequence: UInt64
        var fill: BufferFill
        /// The buffer reached a threshold and no threshold commit is waiting to start.
        var commitNow = false
        /// The first update since the last flush: start the ``Options/flushDelay`` timer.
        var startTimer = false
    }

    /// Buffers an update with the next sequence of its document; nil when the document's
    /// metadata is not cached. Caller holds `lock`.
    ///
    /// `assignedSequence` holds an entry only for a resident document (evict and delete
    /// remove it under the lock after committing), so a hit needs no look at the
    /// metadata, and the sequence is read and bumped in place with one hash of the id.
    private func enqueue(_ update: [UInt8], to id: DocumentID, isLocal: Bool) throws(AccordError) -> Queued? {
        if isClosed { throw AccordError(.storeClosed, "the document store is closed") }
        let sequence: UInt64
        if let slot = assignedSequence.index(forKey: id) {
            assignedSequence.values[slot] += 1
            sequence = assignedSequence.values[slot]
        } else {
            guard let metadata = metadataCache[id] else { return nil }
            guard metadata.isResident else { throw Self.evicted(id) }
            sequence = metadata.lastSequence + 1
            assignedSequence[id] = sequence
        }
        buffer.append(BufferedUpdate(id: id, sequence: sequence, bytes: update, isLocal: isLocal))
        bufferedBytes += update.count
        var queued = Queued(sequence: sequence, fill: BufferFill(count: buffer.count, bytes: bufferedBytes, options: options))
        switch queued.fill {
        case .full where !thresholdCommitRequested:
            thresholdCommitRequested = true
            queued.commitNow = true
        case .below where !flushScheduled && options.flushDelay != nil:
            flushScheduled = true
            queued.startTimer = true
        default:
            break
        }
        return queued
    }

    /// How full the append buffer is against the thresholds in ``Options``.
    enum BufferFill {
        case below, full, overflowing

        init(count: Int, bytes: Int, options: Options) {
            if count >= 8 * options.maxBufferedUpdates || bytes >= 8 * options.maxBufferedBytes {
                self = .overflowing
            } else if count >= options.maxBufferedUpdates || bytes >= options.maxBufferedBytes {
                self = .full
            } else {
                self = .below
            }
        }
    }

    /// ``append(_:to:isLocal:)`` after checking that `update` decodes, so bytes from a
    /// file or the network cannot poison the log. `MALFORMED_UPDATE` appends nothing.
    @discardableResult
    public func appendValidated(_ update: [UInt8], to id: DocumentID, isLocal: Bool = false) throws(AccordError) -> UInt64 {
        _ = try encodeStateVectorFromUpdate(update)
        return try append(update, to: id, isLocal: isLocal)
    }

    /// Commits everything appended so far and returns when it is durable. A failed
    /// background or threshold flush left its updates buffered; they are retried here,
    /// never dropped. Also throws, once, why an attached ``StoredDocument``'s update
    /// could not be appended (the document was deleted or the store closed meanwhile).
    public func flush() throws(AccordError) {
        writeLock.lock()
        defer { writeLock.unlock() }
        let (batch, tallies, dropped) = withLock { () -> ([BufferedUpdate], BatchTallies, AccordError?) in
            let taken = buffer
            buffer = []
            bufferedBytes = 0
            deferredError = nil
            // The next append starts the next timer (see append).
            flushScheduled = false
            // A threshold commit still waiting to start would find less than a
            // threshold's worth; the next threshold may ask for another.
            thresholdCommitRequested = false
            let tallies = BatchTallies(taken)
            for tally in tallies.list where tally.local > 0 { committingLocal[tally.id, default: 0] += tally.local }
            defer { droppedAppendError = nil }
            return (taken, tallies, droppedAppendError)
        }
        guard !batch.isEmpty else {
            if let dropped { throw dropped }
            return
        }
        // Once the commit has updated the metadata (or put the batch back), the local
        // updates are visible again where hasUnacknowledgedWrites looks.
        defer {
            withLock {
                for tally in tallies.list where tally.local > 0 {
                    committingLocal[tally.id, default: tally.local] -= tally.local
                    if committingLocal[tally.id] == 0 { committingLocal[tally.id] = nil }
                }
            }
        }
        let committed: [DocumentMetadata]
        do {
            committed = try commit(batch, tallies)
        } catch {
            withLock {
                buffer = batch + buffer
                bufferedBytes += batch.reduce(0) { $0 + $1.bytes.count }
                if droppedAppendError == nil { droppedAppendError = dropped }
            }
            throw error
        }
        for metadata in committed {
            guard let position = tallies.positions[metadata.id] else { continue }
            let tally = tallies.list[position]
            var change = DocumentChange(id: metadata.id, kind: .appended(tally.first...metadata.lastSequence))
            change.localUpdates = tally.local
            change.remoteUpdates = tally.remote
            notify(change)
        }
        compactIfNeeded(committed)
        if let dropped { throw dropped }
    }

    /// Flushes; the id is accepted for symmetry with per-document APIs. One commit for
    /// every buffered document is cheaper than one per document, so all are committed.
    public func flush(_ id: DocumentID) throws(AccordError) {
        _ = try metadata(id)
        try flush()
    }

    /// Writes a batch of buffered updates and the metadata of the documents they touch
    /// in one atomic commit. Returns the new metadata. Caller holds `writeLock`.
    private func commit(_ batch: [BufferedUpdate], _ tallies: BatchTallies) throws(AccordError) -> [DocumentMetadata] {
        // Each document's metadata, updated in place per entry (a copy of the struct per
        // entry showed in profiles); nil for a document deleted or evicted since the
        // append, whose updates have nowhere to go. In the order of `tallies.list`, so a
        // document's position there is its position here.
        var updated: [DocumentMetadata?] = []
        for tally in tallies.list {
            let metadata = try readMetadata(tally.id)
            updated.append(metadata?.isResident == true ? metadata : nil)
        }
        var operations: [StorageOperation] = []
        operations.reserveCapacity(batch.count + tallies.list.count)
        var current = -1
        for update in batch {
            // Runs of one document: hash the id only when it changes (see BatchTallies).
            if current < 0 || tallies.list[current].id != update.id {
                guard let position = tallies.positions[update.id] else { continue }
                current = position
            }
            guard let localOnly = updated[current]?.localOnly else { continue }
            let value = LogEntryFormat.encode(update.bytes, isLocal: update.isLocal)
            operations.append(.append(DocumentCategories.log, key: update.id.rawValue, sequence: update.sequence, value: value))
            if update.isLocal && !localOnly { updated[current]?.lastLocalSequence = update.sequence }
            updated[current]?.lastSequence = update.sequence
            updated[current]?.logBytes += value.count
            updated[current]?.logCount += 1
        }
        let now = options.now()
        var result: [DocumentMetadata] = []
        for case var metadata? in updated {
            metadata.updated = now
            // Shared storage: the log is the only record of appends (other writers'
            // metadata puts would overwrite each other's counts); only this process's
            // cache keeps its own numbers, for acks and compaction thresholds.
            if options.shared == nil {
                operations.append(.put(DocumentCategories.metadata, key: metadata.id.rawValue, value: try metadata.encoded()))
            }
            result.append(metadata)
        }
        guard !result.isEmpty else { return [] }
        let operationsToCommit = operations
        try storage.withAdapter { try $0.commit(operationsToCommit) }
        withLock {
            for metadata in result { metadataCache[metadata.id] = metadata }
            for tally in tallies.list where tally.remote > 0 { compactionBlocked.remove(tally.id) }
        }
        return result
    }

    /// A flush started by a threshold or the timer, off the editing thread.
    private func backgroundFlush() {
        if withLock({ isClosed }) { return }
        flushRecordingFailure()
    }

    /// Flushes, keeping a failure for the next explicit flush() to report.
    private func flushRecordingFailure() {
        do throws(AccordError) {
            try flush()
        } catch {
            withLock { deferredError = error }
        }
    }

    /// The error of the last background flush, if its updates are still waiting.
    public var pendingFlushError: AccordError? { withLock { deferredError } }

    static func evicted(_ id: DocumentID) -> AccordError {
        AccordError(
            .documentEvicted, "document \(id) was evicted; its content is not on this device",
            details: ["document": id.rawValue])
    }
}
