public import AccordCRDT

extension DocumentStore {
    /// Drops a document's local content (snapshot, log, unsent updates) and keeps its
    /// metadata, marked not resident. Refuses with `UNACKNOWLEDGED_WRITES` while local
    /// updates the server has not acknowledged exist, and for a local-only document
    /// (whose content no server holds), unless `force` (they are then lost).
    public func evict(_ id: DocumentID, force: Bool = false) throws(AccordError) {
        writeLock.lock()
        defer { writeLock.unlock() }
        try checkOpen()
        try flush()
        var metadata = try metadata(id)
        guard metadata.isResident else { return }
        if !force, metadata.localOnly {
            throw AccordError(
                .unacknowledgedWrites, "document \(id) is local-only: its content exists nowhere else",
                details: ["document": id.rawValue, "local_only": "true"])
        }
        if !force, try hasUnacknowledgedWrites(id) {
            throw AccordError(
                .unacknowledgedWrites, "document \(id) has local edits the server has not acknowledged",
                details: ["document": id.rawValue])
        }
        metadata.isResident = false
        metadata.snapshotSequence = metadata.lastSequence
        metadata.snapshotBytes = 0
        metadata.logBytes = 0
        metadata.logCount = 0
        metadata.acknowledgedSequence = metadata.lastSequence
        metadata.updated = options.now()
        try commitMetadata(metadata, extra: contentRemoval(id))
        withLock {
            // Appends from now on look at the metadata and find it evicted.
            assignedSequence[id] = nil
            compactionBlocked.remove(id)
            joinableLogs[id] = nil
        }
        notify(DocumentChange(id: id, kind: .evicted))
    }

    /// Makes an evicted (or empty) document resident again from a full-state update,
    /// e.g. one downloaded from the server. `MALFORMED_UPDATE` changes nothing.
    public func restore(_ id: DocumentID, snapshot: [UInt8]) throws(AccordError) {
        writeLock.lock()
        defer { writeLock.unlock() }
        try checkOpen()
        try flush()
        var metadata = try metadata(id)
        guard !metadata.isResident || metadata.size == 0 else {
            throw AccordError(.invalidArgument, "document \(id) already has content", details: ["document": id.rawValue])
        }
        try Doc().applyUpdate(snapshot)
        metadata.isResident = true
        metadata.snapshotSequence = metadata.lastSequence
        metadata.snapshotBytes = snapshot.count
        metadata.updated = options.now()
        try commitMetadata(metadata, extra: [.put(DocumentCategories.snapshot, key: id.rawValue, value: snapshot)])
        notify(DocumentChange(id: id, kind: .appended(metadata.lastSequence...metadata.lastSequence)))
    }

    /// Removes a document and everything stored for it, including unsent updates.
    public func delete(_ id: DocumentID) throws(AccordError) {
        writeLock.lock()
        defer { writeLock.unlock() }
        try checkOpen()
        _ = try metadata(id)
        withLock {
            buffer.removeAll { $0.id == id }
            bufferedBytes = buffer.reduce(0) { $0 + $1.bytes.count }
        }
        try storage.withAdapter { try $0.commit(contentRemoval(id) + [.delete(DocumentCategories.metadata, key: id.rawValue)]) }
        withLock {
            metadataCache[id] = nil
            assignedSequence[id] = nil
            compactionBlocked.remove(id)
            joinableLogs[id] = nil
        }
        notify(DocumentChange(id: id, kind: .deleted))
    }

    /// Removes every document, every blob and everything else in the storage (logout).
    /// Buffered updates are discarded.
    public func wipeAll() throws(AccordError) {
        writeLock.lock()
        defer { writeLock.unlock() }
        try checkOpen()
        let ids = try documents().map(\.id)
        withLock {
            buffer = []
            bufferedBytes = 0
            deferredError = nil
        }
        try storage.withAdapter { try $0.wipeAll() }
        withLock {
            metadataCache = [:]
            assignedSequence = [:]
            compactionBlocked = []
            joinableLogs = [:]
        }
        for id in ids { notify(DocumentChange(id: id, kind: .deleted)) }
    }

    private func contentRemoval(_ id: DocumentID) -> [StorageOperation] {
        [
            .delete(DocumentCategories.snapshot, key: id.rawValue),
            .deleteLog(DocumentCategories.log, key: id.rawValue),
            .deleteLog(DocumentCategories.outbound, key: id.rawValue),
            .delete(DocumentCategories.clientLease, key: id.rawValue),
        ]
    }
}
