import AccordCRDT
import AccordStore

/// Keeps the index current for one open document: a ``RecordChangeTracker`` collects
/// the records each transaction touched (its observers run first), and the `Doc`'s
/// update hook, which runs after them, reads those records and queues them for the
/// index (``RecordIndex/enqueue(_:doc:changes:models:sequence:)``), which writes them
/// before its next read or in the background. Lives on the client's executor, as the
/// `Doc` does.
final class DocumentProjector {
    let id: DocumentID
    let doc: Doc
    private let index: RecordIndex
    private let store: DocumentStore
    private let tracker: RecordChangeTracker
    /// The models followed, by name, with the schema their records are read with.
    private(set) var tracked: [String: ModelSchema] = [:]
    private var subscription: Subscription?
    /// The log position of the latest transaction: the store appends each transaction
    /// of an open document under the next sequence, so it is the position at open
    /// plus the transactions since (the store's metadata only moves at a flush).
    private var sequence: UInt64
    /// Changed records not yet announced, by the log position of their transaction:
    /// subscribers hear of them once the store made that position durable.
    private var undelivered: [(sequence: UInt64, changes: [String: Set<String>])] = []
    /// The records a save is about to write, as they will read once written, and the
    /// schema they were checked with: the next transaction's projection takes these
    /// instead of reading them out of the `Doc` again (which cost about as much as
    /// writing them). Set just before the save's transaction, cleared right after it.
    private var saved: (schema: ModelSchema, records: [String: RecordData])?

    init(id: DocumentID, doc: Doc, index: RecordIndex, store: DocumentStore) throws(AccordError) {
        self.id = id
        self.doc = doc
        self.index = index
        self.store = store
        tracker = try RecordChangeTracker(doc: doc, models: [])
        sequence = try store.metadata(id).lastSequence
        index.clearFailure(of: id)
        // The store's own update hook was added when the document opened, before this
        // one, so the log sequence read here already counts the transaction.
        subscription = doc.onUpdate { [unowned self] _, _ in projectChanges() }
    }

    deinit { subscription?.cancel() }

    /// The last projection that failed (the index keeps its previous rows); the next
    /// open projects the document again, since its stored state no longer matches.
    var lastError: AccordError? { index.failure(of: id) }

    /// Starts following `models` it does not follow yet, and reads the ones it follows
    /// with their schema as given (a model registered again). Returns whether it
    /// started following any (what the index holds for them may then be stale).
    func track(_ models: [ModelSchema]) throws(AccordError) -> Bool {
        var added = false
        for model in models {
            if tracked[model.name] == nil {
                try tracker.track(model, in: doc)
                added = true
            }
            tracked[model.name] = model
        }
        return added
    }

    /// Projects the whole document unless the index already reflects exactly its
    /// state (same state vector and log position): a reopen of an unchanged document
    /// costs two comparisons.
    func catchUp() throws(AccordError) {
        let position = try position()
        guard try index.needsProjection(id, stateVector: position.stateVector, sequence: position.sequence) else { return }
        try index.projectAll(id, doc: doc, sequence: position.sequence)
    }

    /// Records that the index reflects the document as it is now (on close, when no
    /// change is waiting), so the next open finds nothing to do.
    func markCurrent() throws(AccordError) {
        guard lastError == nil else { return }
        let pending = tracker.take()
        let position = try position()
        if pending.isEmpty {
            try index.markCurrent(id, stateVector: position.stateVector, sequence: position.sequence)
        } else {
            try index.project(id, doc: doc, changes: pending, sequence: position.sequence)
        }
    }

    /// Announces the records the next transaction writes, as they will read once
    /// written (see ``saved``). Later entries for one id win, as in the write.
    func expectSaved(_ records: [RecordData], of schema: ModelSchema) {
        var byID: [String: RecordData] = .init(minimumCapacity: records.count)
        for record in records { byID[record.id] = record }
        saved = (schema, byID)
    }

    /// Forgets the records announced with ``expectSaved(_:of:)`` (their transaction ended).
    func forgetSaved() {
        saved = nil
    }

    private func projectChanges() {
        sequence += 1
        let (changes, created) = tracker.takeChanges()
        let known = saved
        saved = nil
        guard !changes.isEmpty else { return }
        undelivered.append((sequence, changes))
        // Read here, on the document's owner; the index writes them off this path.
        index.enqueue(
            id, doc: doc, changes: changes, created: created, models: tracked, sequence: sequence,
            known: known.map { (model: $0.schema, records: $0.records) })
    }

    /// The changed records of every transaction the store made durable through
    /// `durable`, merged by model (only the models `wanted` accepts: merging a large
    /// batch's ids for a model nobody listens to showed in profiles of saving), and
    /// forgets them all.
    func takeDurable(through durable: UInt64, wanted: (String) -> Bool) -> [String: Set<String>] {
        var merged: [String: Set<String>] = [:]
        while let first = undelivered.first, first.sequence <= durable {
            for (model, ids) in first.changes where wanted(model) {
                // One transaction's ids as they are (a set built again is a hash per id).
                if merged[model] == nil { merged[model] = ids } else { merged[model]?.formUnion(ids) }
            }
            undelivered.removeFirst()
        }
        return merged
    }

    private func position() throws(AccordError) -> (stateVector: [UInt8], sequence: UInt64) {
        (doc.encodeStateVector(), try store.metadata(id).lastSequence)
    }
}
