public import AccordCRDT

/// An open document: a ``Doc`` loaded from a ``DocumentStore`` whose every transaction
/// is appended to the store's log, until ``close()``.
///
/// Updates applied with origin ``DocumentStore/remoteOrigin`` are logged as received
/// (not kept for sending); every other transaction is a local edit. Not `Sendable`: the
/// ``Doc`` belongs to one owner, like the ``Doc`` itself.
public final class StoredDocument {
    public let id: DocumentID
    public let doc: Doc
    public let store: DocumentStore
    private var subscription: Subscription?

    init(id: DocumentID, doc: Doc, store: DocumentStore) {
        self.id = id
        self.doc = doc
        self.store = store
        subscription = doc.onUpdate { [store] update, origin in
            // A failed append (the store closed, the document deleted meanwhile) cannot
            // be thrown from a Doc callback; the next flush() of the store throws it.
            store.appendFromDocument(update, to: id, isLocal: origin != DocumentStore.remoteOrigin)
        }
    }

    /// Stops logging this document's transactions, flushes what it appended, and
    /// records its client ID for the next open (``ClientLease``).
    public func close() throws(AccordError) {
        guard let subscription else { return }
        subscription.cancel()
        self.subscription = nil
        try store.flush()
        try store.leaseClosed(id, doc: doc)
    }

    deinit {
        // Not closed: no lease is recorded, so the next open takes a new client ID.
        if let subscription {
            subscription.cancel()
            store.leaseAbandoned(id)
        }
    }
}

extension DocumentStore {
    /// Loads a document and keeps appending its transactions to the store (see
    /// ``StoredDocument``). `DOCUMENT_NOT_FOUND` unless it exists (or `create` is set).
    ///
    /// Without `doc`, the document writes under the Yjs client ID it last wrote with on
    /// this store when that is safe (``ClientLease``: closed cleanly, nothing written
    /// under the ID that the store lacks, not open elsewhere in this process), and
    /// under a new random one otherwise.
    public func open(_ id: DocumentID, createIfMissing: Bool = false, doc: Doc? = nil) throws(AccordError) -> StoredDocument {
        if createIfMissing, try !contains(id) {
            try create(id)
        }
        let lease = doc == nil ? try takeClientLease(id) : nil
        let loaded = try load(id, into: doc ?? Doc())
        if let lease, UInt64(loaded.stateVector[lease.clientID]) == lease.clock {
            loaded.resumeClientID(lease.clientID)
        }
        leaseOpened(id)
        return StoredDocument(id: id, doc: loaded, store: self)
    }

    func appendFromDocument(_ update: [UInt8], to id: DocumentID, isLocal: Bool) {
        do throws(AccordError) {
            try append(update, to: id, isLocal: isLocal)
        } catch {
            withLock { droppedAppendError = error }
        }
    }
}
