import AccordCRDT
import AccordStore

extension Database {
    /// Runs `body` as one batch: every save, delete and purge in it (in any collection)
    /// is committed together when it returns, as one SQLite transaction of the document
    /// table after one CRDT transaction per collection; readers on other threads wait
    /// and then see all of it. When `body` throws, nothing of the batch is written and
    /// the error is rethrown. Batches nest: an inner batch joins the outer one.
    public func inBatch(_ body: () throws -> Void) throws {
        lock.lock()
        defer { lock.unlock() }
        guard let open = state else { throw AccordError(.databaseClosed, "the database \(name) is closed") }
        if batch != nil { return try body() }
        let pending = PendingBatch(sequenceBefore: open.sequence)
        batch = pending
        do {
            try body()
        } catch {
            batch = nil
            open.sequence = pending.sequenceBefore
            throw error
        }
        batch = nil
        do {
            try commitBatch(pending, in: open)
        } catch {
            open.sequence = pending.sequenceBefore
            throw error
        }
    }

    /// Stages one write into the running batch, or commits it alone. Caller holds the lock.
    func perform(_ write: (OpenState, UInt64) throws(AccordError) -> PendingBatch.Write?) throws(AccordError) {
        guard let open = state else { throw AccordError(.databaseClosed, "the database \(name) is closed") }
        let pending = batch ?? PendingBatch(sequenceBefore: open.sequence)
        guard let staged = try write(open, open.sequence + 1) else { return }
        open.sequence = staged.sequence
        pending.stage(staged)
        if batch == nil {
            do {
                try commitBatch(pending, in: open)
            } catch {
                open.sequence = pending.sequenceBefore
                throw error
            }
        }
    }

    /// What a read sees of a document: the running batch's staged state, else the table.
    /// Caller holds the lock.
    func currentState(_ key: CollectionKey, _ id: String, in open: OpenState) throws(AccordError) -> PendingBatch.Staged? {
        if let staged = batch?.staged[key]?[id] { return staged }
        guard let row = try open.table.row(collection: key.tableName, id: id) else { return nil }
        if row.purged { return .purged }
        if row.deleted { return .deleted(sequence: row.sequence) }
        return .saved(try Self.object(row.body, key: key, id: id), sequence: row.sequence)
    }

    static func object(_ body: String, key: CollectionKey, id: String) throws(AccordError) -> OrderedObject {
        guard case .object(let object) = try? AnyValue(jsonText: body) else {
            throw AccordError(
                .storageCorrupt, "the stored JSON of document \(id) in \(key.tableName) does not parse",
                details: ["document": id, "collection": key.name])
        }
        return object
    }

    /// Applies a batch: CRDT edits per collection, a flush of the store (durable from
    /// here), then the table rows and each collection's projected store sequence in one
    /// SQLite transaction, then the documents saved and the listeners.
    func commitBatch(_ pending: PendingBatch, in open: OpenState) throws(AccordError) {
        guard !pending.writes.isEmpty else { return }
        var order: [CollectionKey] = []
        var byCollection: [CollectionKey: [PendingBatch.Write]] = [:]
        for write in pending.writes {
            if byCollection[write.key] == nil { order.append(write.key) }
            byCollection[write.key, default: []].append(write)
        }
        // Every collection first (one deleted during the batch fails the commit here),
        // so a commit that fails does so before editing anything.
        var contents: [CollectionKey: CollectionContent] = [:]
        for key in order { contents[key] = try content(key) }
        for key in order {
            let content = contents[key]!
            let writes = byCollection[key]!
            guard writes.contains(where: { if case .purge = $0.kind { false } else { true } }) else { continue }
            try transact(content) { () throws(AccordError) in
                for write in writes {
                    switch write.kind {
                    case .save(let base, let current): try content.write(id: write.id, base: base, current: current)
                    case .delete: try content.delete(id: write.id)
                    case .purge: break
                    }
                }
            }
        }
        for content in contents.values { try content.checkAppends() }
        try open.store.flush()
        var saved: [(PendingBatch.Write, OrderedObject)] = []
        // A purge exists only in the table (not replicated, not in the store): synced.
        let holdsPurge = pending.writes.contains { if case .purge = $0.kind { true } else { false } }
        let commit: (() throws(AccordError) -> Void) throws(AccordError) -> Void =
            holdsPurge ? open.table.durableTransaction : open.table.transaction
        try commit { () throws(AccordError) in
            for key in order {
                let content = contents[key]!
                for write in byCollection[key]! {
                    switch write.kind {
                    case .save(_, let current):
                        let result = write.knownResult ?? content.object(write.id) ?? current
                        try open.table.write(
                            collection: key.tableName, id: write.id, body: AnyValue.object(result).jsonText, sequence: write.sequence,
                            deleted: false)
                        saved.append((write, result))
                    case .delete:
                        try open.table.write(
                            collection: key.tableName, id: write.id, body: "{}", sequence: write.sequence, deleted: true)
                        write.document?.sequence = write.sequence
                    case .purge:
                        try open.table.setPurged(collection: key.tableName, id: write.id)
                    }
                }
                let storeSequence = try open.store.metadata(try key.documentID()).lastSequence
                try open.table.setProjectedSequence(collection: key.tableName, storeSequence)
            }
        }
        for (write, result) in saved {
            guard let document = write.document else { continue }
            document.sequence = write.sequence
            document.base = result
            // Only a merge with others' writes changes what the app holds (its live
            // nested objects stay when the result is what it saved).
            if write.knownResult == nil, case .save(_, let current) = write.kind, result != current {
                document.properties = PropertyContainer.properties(
                    of: result, mutable: document is MutableDocument, blobs: open.blobs)
            }
        }
        var changed: [CollectionKey: [String]] = [:]
        for write in pending.writes { changed[write.key, default: []].append(write.id) }
        listeners.notify(changed)
    }

    private func transact(_ content: CollectionContent, _ body: () throws(AccordError) -> Void) throws(AccordError) {
        do {
            try content.doc.transact { try body() }
        } catch let error as AccordError {
            throw error
        } catch {
            throw AccordError(.storageError, "editing \(content.key.tableName): \(error)")
        }
    }

    /// Brings a collection's rows up to date with its CRDT document when the table's
    /// projected store sequence is not the store's (a crash between the store's commit
    /// and the table's, or updates the table never saw): every document whose content
    /// differs gets the next sequence, documents gone from the CRDT become tombstones.
    /// Caller holds the lock.
    func refreshTable(_ content: CollectionContent, in open: OpenState) throws(AccordError) {
        let key = content.key
        let storeSequence = try open.store.metadata(try key.documentID()).lastSequence
        guard try open.table.projectedSequence(collection: key.tableName) != storeSequence else { return }
        let rows = try open.table.rows(collection: key.tableName)
        var changed: [String] = []
        try open.table.transaction { () throws(AccordError) in
            for id in content.ids {
                guard let object = content.object(id) else { continue }
                let body = AnyValue.object(object).jsonText
                if let row = rows[id], !row.deleted, row.body == body { continue }
                open.sequence += 1
                try open.table.write(collection: key.tableName, id: id, body: body, sequence: open.sequence, deleted: false)
                changed.append(id)
            }
            let present = Set(content.ids)
            for (id, row) in rows where !row.deleted && !present.contains(id) {
                open.sequence += 1
                try open.table.write(collection: key.tableName, id: id, body: "{}", sequence: open.sequence, deleted: true)
                changed.append(id)
            }
            try open.table.setProjectedSequence(collection: key.tableName, storeSequence)
        }
        if !changed.isEmpty { listeners.notify([key: changed]) }
    }
}
