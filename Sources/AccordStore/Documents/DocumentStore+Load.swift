public import AccordCRDT

extension DocumentStore {
    /// The stored content of a document, read consistently in one adapter call.
    struct StoredContent {
        var metadata: DocumentMetadata
        var snapshot: [UInt8]?
        var log: [StorageLogEntry]
    }

    /// Loads a document: its snapshot, then its log, then any updates still buffered,
    /// applied to `doc` (a fresh ``Doc`` by default) with origin `accord.store`.
    ///
    /// `DOCUMENT_NOT_FOUND`, `DOCUMENT_EVICTED`, or `STORAGE_CORRUPT` naming the document
    /// when a record is missing or does not decode. Nothing is written either way.
    public func load(_ id: DocumentID, into doc: Doc = Doc()) throws(AccordError) -> Doc {
        try checkOpen()
        // Take the buffered updates before reading storage: a flush in between then
        // shows them twice (skipped below by sequence) rather than not at all.
        let buffered = withLock { buffer.filter { $0.id == id } }
        let content = try readContent(id)
        try Self.replay(content, into: doc)
        // Shared storage numbers the log in the database, not as the buffer did:
        // apply every buffered update (applying one twice changes nothing).
        let last = options.shared != nil ? 0 : content.log.last?.sequence ?? content.metadata.snapshotSequence
        for update in buffered where update.sequence > last {
            do {
                try doc.applyUpdate(update.bytes, origin: Self.storeOrigin)
            } catch {
                throw Self.corrupt(id, "buffered update \(update.sequence) does not apply: \(error.message)")
            }
        }
        return doc
    }

    /// The origin of the updates ``load(_:into:)`` applies, so an observer can tell a
    /// load from an edit.
    public static let storeOrigin = Origin("accord.store")

    /// Reads metadata, snapshot and log under one hold of the adapter, and checks that
    /// they agree with each other (a missing record shows up as a mismatch).
    func readContent(_ id: DocumentID) throws(AccordError) -> StoredContent {
        if options.shared != nil { return try readSharedContent(id) }
        let raw = try storage.withAdapter { adapter -> (metadata: [UInt8]?, snapshot: [UInt8]?, log: [StorageLogEntry]) in
            guard let metadata = try adapter.read(DocumentCategories.metadata, key: id.rawValue) else {
                return (nil, nil, [])
            }
            let snapshot = try adapter.read(DocumentCategories.snapshot, key: id.rawValue)
            let log = try adapter.readLog(DocumentCategories.log, key: id.rawValue, after: 0)
            return (metadata, snapshot, log)
        }
        guard let metadataBytes = raw.metadata else { throw Self.notFound(id) }
        let metadata = try DocumentMetadata.decode(metadataBytes, id: id)
        guard metadata.isResident else { throw Self.evicted(id) }
        if metadata.snapshotBytes > 0 {
            guard let snapshot = raw.snapshot else { throw Self.corrupt(id, "the snapshot is missing") }
            guard snapshot.count == metadata.snapshotBytes else {
                throw Self.corrupt(id, "the snapshot has \(snapshot.count) bytes, \(metadata.snapshotBytes) expected")
            }
        }
        let log = raw.log
        let logBytes = log.reduce(0) { $0 + $1.value.count }
        guard log.count == metadata.logCount, logBytes == metadata.logBytes,
            (log.last?.sequence ?? metadata.snapshotSequence) == metadata.lastSequence,
            log.first.map({ $0.sequence > metadata.snapshotSequence }) ?? true
        else {
            throw Self.corrupt(
                id, "the log has \(log.count) entries (\(logBytes) bytes) up to \(log.last?.sequence ?? 0); "
                    + "\(metadata.logCount) entries (\(metadata.logBytes) bytes) up to \(metadata.lastSequence) expected")
        }
        return StoredContent(metadata: metadata, snapshot: metadata.snapshotBytes > 0 ? raw.snapshot : nil, log: log)
    }

    /// Applies snapshot and log to `doc`; a failure names the record that did not apply.
    static func replay(_ content: StoredContent, into doc: Doc) throws(AccordError) {
        let id = content.metadata.id
        if let snapshot = content.snapshot {
            do {
                try doc.applyUpdate(snapshot, origin: storeOrigin)
            } catch {
                throw corrupt(id, "the snapshot does not decode: \(error.message)")
            }
        }
        for entry in content.log {
            let update = try LogEntryFormat.decode(entry.value, document: id, sequence: entry.sequence).update
            do {
                try doc.applyUpdate(update, origin: storeOrigin)
            } catch {
                throw corrupt(id, "log entry \(entry.sequence) does not decode: \(error.message)")
            }
        }
    }
}
