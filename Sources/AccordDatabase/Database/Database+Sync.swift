public import AccordCRDT
public import AccordStore
public import AccordSync

extension AccordClient {
    /// Syncs the database's collections through this client: create the client over the
    /// database's store (`AccordClient(serverURL:store: database.store, ...)`), start it,
    /// then call this. Each collection is one document of the store, opened here; the
    /// database's saves are local edits of the store, which the client sends, and what
    /// the client receives is applied to the database's documents, its table and its
    /// listeners (after the store made it durable). Collections created afterwards are
    /// opened in the client as they are created, so they sync too. Stop the client
    /// before closing the database.
    ///
    /// - Throws: `INVALID_ARGUMENT` when the client is over another store; the client's
    ///   `open` errors; `DATABASE_CLOSED`.
    public func sync(database: Database) async throws(AccordError) {
        guard database.store === store else {
            throw AccordError(.invalidArgument, "the client syncs a database only over its store: AccordClient(store: database.store)")
        }
        addDocumentObserver(database.syncObserver)
        database.addSyncingClient(self)
        for id in try database.collectionDocumentIDs() {
            try await open(id)
        }
    }
}

/// Hears, inside the client, the updates it received for the database's collection
/// documents, and hands each to the database.
final class DatabaseSyncObserver: DocumentObserver, @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `subscriptions` is touched only in the
    // DocumentObserver calls, which run isolated to the one client observed.
    private var subscriptions: [DocumentID: Subscription] = [:]
    weak var database: Database?

    func documentOpened(_ id: DocumentID, doc: Doc, client: isolated AccordClient) {
        guard id.rawValue.hasPrefix(CollectionKey.documentPrefix) else { return }
        subscriptions[id]?.cancel()
        subscriptions[id] = doc.onUpdate { [weak self] update, origin in
            // The client's StoredDocument has appended it (as received) by now.
            guard origin == DocumentStore.remoteOrigin else { return }
            self?.database?.receivedSyncedUpdate(update, document: id)
        }
    }

    func documentClosed(_ id: DocumentID, client: isolated AccordClient) {
        subscriptions.removeValue(forKey: id)?.cancel()
    }
}

/// A client a database syncs through, held weakly (the app owns its clients).
struct WeakClient {
    weak var client: AccordClient?
}

extension Database {
    func addSyncingClient(_ client: AccordClient) {
        lock.lock()
        defer { lock.unlock() }
        syncingClients.removeAll { $0.client == nil || $0.client === client }
        syncingClients.append(WeakClient(client: client))
    }

    /// Opens a new collection's store document in every syncing client (in the
    /// background: the collection is usable at once and syncs once opened). A client
    /// that cannot open it (stopped, closed) leaves it for the next `sync(database:)`.
    /// Caller holds the lock.
    func startSyncing(_ id: DocumentID) {
        for client in syncingClients.compactMap(\.client) {
            Task { try? await client.open(id) }
        }
    }

    /// The store documents of every collection, in every scope.
    func collectionDocumentIDs() throws(AccordError) -> [DocumentID] {
        try withOpen { open throws(AccordError) in
            var ids: [DocumentID] = []
            for metadata in try open.store.documents() where CollectionKey(storeTitle: metadata.title, id: metadata.id) != nil {
                ids.append(metadata.id)
            }
            return ids
        }
    }

    /// Applies an update a client received for a collection document (already in the
    /// store) to the database's copy, makes it durable, refreshes the rows of the
    /// documents it touched, and tells the listeners. A failure here leaves the table
    /// behind the store, which the next open repairs (the rebuild from the store).
    func receivedSyncedUpdate(_ update: [UInt8], document id: DocumentID) {
        lock.lock()
        defer { lock.unlock() }
        guard let open = state else { return }
        do throws(AccordError) {
            guard let metadata = try? open.store.metadata(id), let key = CollectionKey(storeTitle: metadata.title, id: id)
            else { return }
            let content = try content(key)
            let touched = try content.applySynced(update)
            guard !touched.isEmpty else { return }
            try open.store.flush()
            try refreshRows(touched, of: content, in: open)
        } catch {
            return
        }
    }

    /// Writes the rows of `ids` from the CRDT document (a new sequence for each whose
    /// content changed, a tombstone for each gone), records the store sequence they
    /// reflect, and tells the listeners. Caller holds the lock.
    func refreshRows(_ ids: [String], of content: CollectionContent, in open: OpenState) throws(AccordError) {
        let key = content.key
        var changed: [String] = []
        let storeSequence = try open.store.metadata(content.id).lastSequence
        try open.table.transaction { () throws(AccordError) in
            for id in ids {
                let row = try open.table.row(collection: key.tableName, id: id)
                if let object = content.object(id) {
                    let body = AnyValue.object(object).jsonText
                    if let row, !row.deleted, row.body == body { continue }
                    open.sequence += 1
                    try open.table.write(collection: key.tableName, id: id, body: body, sequence: open.sequence, deleted: false)
                } else {
                    guard let row, !row.deleted else { continue }
                    open.sequence += 1
                    try open.table.write(collection: key.tableName, id: id, body: "{}", sequence: open.sequence, deleted: true)
                }
                changed.append(id)
            }
            try open.table.setProjectedSequence(collection: key.tableName, storeSequence)
        }
        if !changed.isEmpty { listeners.notify([key: changed]) }
    }
}
