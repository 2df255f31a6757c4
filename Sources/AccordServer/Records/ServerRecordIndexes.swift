import AccordCRDT
import AccordStore
import AccordRecords

/// The query index of the documents the records routes touch: per document, an
/// in-memory ``RecordIndex`` of its registered models, projected from the room's `Doc`
/// once and then kept current from each transaction's changes (a ``RecordChangeTracker``
/// on the doc collects the records that sync clients and REST writes touched; the next
/// read projects only those). The same index and query engine as on a client, so a
/// server-side query answers exactly what a client-side one does.
///
/// At most ``capacity`` documents are kept (least recently used go first); an index is
/// derived data, rebuilt from the document when needed again, also when its room was
/// unloaded and loaded again (another `Doc`) or its schema changed.
///
/// Used only on the sync hub's queue, with the rooms (the invariant behind
/// `@unchecked Sendable`).
final class ServerRecordIndexes: @unchecked Sendable {
    private struct Entry {
        let doc: Doc
        let models: [ModelSchema]
        let index: RecordIndex
        let tracker: RecordChangeTracker
        var lastUse: UInt64
    }

    let capacity: Int
    private var entries: [DocumentID: Entry] = [:]
    private var uses: UInt64 = 0

    init(capacity: Int = 8) {
        self.capacity = max(1, capacity)
    }

    /// The index of `document` as `doc` is now.
    func index(for document: DocumentID, doc: Doc, models: [ModelSchema]) throws(AccordError) -> RecordIndex {
        uses += 1
        if var entry = entries[document], entry.doc === doc, entry.models == models {
            let changes = entry.tracker.take()
            if !changes.isEmpty {
                do {
                    try entry.index.project(document, doc: doc, changes: changes)
                } catch {
                    entries[document] = nil  // its changes are taken: rebuild next time
                    throw error
                }
            }
            entry.lastUse = uses
            entries[document] = entry
            return entry.index
        }
        entries[document] = nil
        if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            entries[oldest] = nil
        }
        let index = try RecordIndex(path: ":memory:")
        try index.register(models)
        let tracker = try RecordChangeTracker(doc: doc, models: models)
        try index.projectAll(document, doc: doc)
        entries[document] = Entry(doc: doc, models: models, index: index, tracker: tracker, lastUse: uses)
        return index
    }
}
