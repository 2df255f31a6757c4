public import AccordCRDT

extension DocumentStore {
    /// Durable local updates the server has not acknowledged, in order, with their
    /// sequence numbers: what a sync engine resends after a restart. Updates still
    /// buffered are not included; they appear once flushed.
    ///
    /// They live in two places: still in the log (local entries above the acknowledged
    /// sequence), or, once a compaction folded them into the snapshot, in the outbound log.
    public func unacknowledgedUpdates(_ id: DocumentID) throws(AccordError) -> [StorageLogEntry] {
        let metadata = try metadata(id)
        guard !metadata.localOnly, metadata.lastLocalSequence > metadata.acknowledgedSequence else { return [] }
        let (folded, log) = try storage.withAdapter { adapter in
            (
                try adapter.readLog(DocumentCategories.outbound, key: id.rawValue, after: metadata.acknowledgedSequence),
                try adapter.readLog(DocumentCategories.log, key: id.rawValue, after: metadata.acknowledgedSequence)
            )
        }
        var result = folded
        for entry in log {
            let (isLocal, update) = try LogEntryFormat.decode(entry.value, document: id, sequence: entry.sequence)
            if isLocal, entry.sequence > (folded.last?.sequence ?? 0) {
                result.append(StorageLogEntry(sequence: entry.sequence, value: update))
            }
        }
        return result
    }

    /// Whether local updates wait for the server's acknowledgement (buffered or durable).
    public func hasUnacknowledgedWrites(_ id: DocumentID) throws(AccordError) -> Bool {
        let metadata = try metadata(id)
        if metadata.localOnly { return false }
        if withLock({ committingLocal[id] != nil || buffer.contains { $0.id == id && $0.isLocal } }) { return true }
        return metadata.lastLocalSequence > metadata.acknowledgedSequence
    }

    /// Records that the server has durably stored every local update of the document
    /// with a sequence up to `sequence`; they are no longer kept for sending.
    public func acknowledge(_ id: DocumentID, through sequence: UInt64) throws(AccordError) {
        writeLock.lock()
        defer { writeLock.unlock() }
        try checkOpen()
        var metadata = try metadata(id)
        guard sequence <= metadata.lastSequence else {
            throw AccordError(
                .invalidArgument, "cannot acknowledge \(sequence): the last durable update of \(id) is \(metadata.lastSequence)",
                details: ["document": id.rawValue])
        }
        guard sequence > metadata.acknowledgedSequence else { return }
        metadata.acknowledgedSequence = sequence
        try commitMetadata(metadata, extra: [.truncateLog(DocumentCategories.outbound, key: id.rawValue, through: sequence)])
        notify(DocumentChange(id: id, kind: .metadataChanged))
    }
}
