import AccordCRDT

/// The writes of one batch (a single save is a batch of one), checked when staged and
/// applied together at commit: CRDT edits first (one transaction per collection), the
/// store flushed, then the document table in one SQLite transaction. Nothing is applied
/// before the batch's block returns, so a block that throws leaves no trace.
final class PendingBatch {
    enum Kind {
        case save(base: OrderedObject?, current: OrderedObject)
        case delete
        case purge
    }

    struct Write {
        var key: CollectionKey
        var id: String
        var kind: Kind
        var sequence: UInt64
        /// The document the app saved or deleted, updated after the commit.
        var document: Document?
        /// What the document will hold after a save, when that is known without reading
        /// the CRDT document back: the saved content itself, when the save's base is what
        /// was stored (no other writer changed it since it was read) or it has no base.
        var knownResult: OrderedObject? = nil
    }

    /// What a read inside the batch sees of a document the batch wrote.
    enum Staged {
        case saved(OrderedObject, sequence: UInt64)
        case deleted(sequence: UInt64)
        case purged
    }

    var writes: [Write] = []
    var staged: [CollectionKey: [String: Staged]] = [:]
    /// The database's last sequence before the batch, restored when it is dropped.
    let sequenceBefore: UInt64

    init(sequenceBefore: UInt64) {
        self.sequenceBefore = sequenceBefore
    }

    func stage(_ write: Write) {
        writes.append(write)
        let state: Staged
        switch write.kind {
        case .save(_, let current): state = .saved(current, sequence: write.sequence)
        case .delete: state = .deleted(sequence: write.sequence)
        case .purge: state = .purged
        }
        staged[write.key, default: [:]][write.id] = state
    }
}
