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
        let metadata = try metadata(id)
        guard metadata.isResident else { throw Self.evicted(id) }
        let (sequence, fill, shouldSchedule) = try withLock { () throws(AccordError) -> (UInt64, BufferFill, Bool) in
            if isClosed { throw AccordError(.storeClosed, "the document store is closed") }
            let sequence = (assignedSequence[id] ?? metadata.lastSequence) + 1
            assignedSequence[id] = sequence
            buffer.append(BufferedUpdate(id: id, sequence: sequence, bytes: update, isLocal: isLocal))
            bufferedBytes += update.count
            let fill = BufferFill(count: buffer.count, bytes: bufferedBytes, options: options)
            let schedule = fill == .below && !flushScheduled && options.flushDelay != nil
            if schedule { flushScheduled = true }
            return (sequence, fill, schedule)
        }
        switch fill {
        case .full:
            // Commit now, unless another commit (a flush, or a compaction writing its
            // snapshot) holds the write lock: then keep appending and let the next
            // append or the timer commit, rather than stall the editing thread. A
            // failure keeps everything buffered for the next flush() to report.
            if writeLock.try() {
                defer { writeLock.unlock() }
                flushRecordingFailure()
            }
        case .overflowing:
            // Far past the threshold: wait for the write lock, so memory stays bounded.
            flushRecordingFailure()
        case .below:
            break
        }
        if shouldSchedule, let delay = options.flushDelay {
            scheduleFlush(after: delay)
        }
        return sequence
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
        let (batch, dropped) = withLock { () -> ([BufferedUpdate], AccordError?) in
            let taken = buffer
            buffer = []
            bufferedBytes = 0
            deferredError = nil
            for update in taken where update.isLocal { committingLocal[update.id, default: 0] += 1 }
            defer { droppedAppendError = nil }
            return (taken, droppedAppendError)
        }
        guard !batch.isEmpty else {
            if let dropped { throw dropped }
            return
        }
        // Once the commit has updated the metadata (or put the batch back), the local
        // updates are visible again where hasUnacknowledgedWrites looks.
        defer {
            withLock {
                for update in batch where update.isLocal {
                    committingLocal[update.id, default: 1] -= 1
                    if committingLocal[update.id] == 0 { committingLocal[update.id] = nil }
                }
            }
        }
        let committed: [DocumentMetadata]
        do {
            committed = try commit(batch)
        } catch {
            withLock {
                buffer = batch + buffer
                bufferedBytes += batch.reduce(0) { $0 + $1.bytes.count }
                if droppedAppendError == nil { droppedAppendError = dropped }
            }
            throw error
        }
        // One pass over the batch: per document, its first sequence and the local/remote split.
        var tallies: [DocumentID: (first: UInt64, local: Int, remote: Int)] = [:]
        for update in batch {
            var tally = tallies[update.id] ?? (update.sequence, 0, 0)
            if update.isLocal { tally.local += 1 } else { tally.remote += 1 }
            tallies[update.id] = tally
        }
        for metadata in committed {
            guard let tally = tallies[metadata.id] else { continue }
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
    private func commit(_ batch: [BufferedUpdate]) throws(AccordError) -> [DocumentMetadata] {
        var order: [DocumentID] = []
        var updated: [DocumentID: DocumentMetadata] = [:]
        var operations: [StorageOperation] = []
        operations.reserveCapacity(batch.count * 2 + 8)
        let now = options.now()
        for update in batch {
            if updated[update.id] == nil {
                // A document deleted or evicted since the append has nowhere to go.
                guard let metadata = try readMetadata(update.id), metadata.isResident else { continue }
                updated[update.id] = metadata
                order.append(update.id)
            }
            guard var metadata = updated[update.id] else { continue }
            let value = LogEntryFormat.encode(update.bytes, isLocal: update.isLocal)
            operations.append(.append(DocumentCategories.log, key: update.id.rawValue, sequence: update.sequence, value: value))
            if update.isLocal && !metadata.localOnly { metadata.lastLocalSequence = update.sequence }
            metadata.lastSequence = update.sequence
            metadata.logBytes += value.count
            metadata.logCount += 1
            metadata.updated = now
            updated[update.id] = metadata
        }
        var result: [DocumentMetadata] = []
        for id in order {
            guard let metadata = updated[id] else { continue }
            operations.append(.put(DocumentCategories.metadata, key: id.rawValue, value: try metadata.encoded()))
            result.append(metadata)
        }
        guard !result.isEmpty else { return [] }
        let operationsToCommit = operations
        try storage.withAdapter { try $0.commit(operationsToCommit) }
        withLock {
            for metadata in result { metadataCache[metadata.id] = metadata }
            for update in batch where !update.isLocal { compactionBlocked.remove(update.id) }
        }
        return result
    }

    private func scheduleFlush(after delay: Duration) {
        let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in
            guard let self else { return }
            self.withLock { self.flushScheduled = false }
            if self.withLock({ self.isClosed }) { return }
            self.flushRecordingFailure()
        }
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
