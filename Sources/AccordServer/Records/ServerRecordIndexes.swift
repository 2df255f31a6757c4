import Foundation
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
/// Called by REST work holding the document's room (a lease, `SyncHub+Lease.swift`), so
/// one document's entry is used by one thread at a time while others use theirs; the
/// table itself is shared, behind `lock` (the invariant behind `@unchecked Sendable`).
/// A table lookup never waits for another document's projection.
final class ServerRecordIndexes: @unchecked Sendable {
    private struct Entry {
        let doc: Doc
        let models: [ModelSchema]
        let index: RecordIndex
        let tracker: RecordChangeTracker
        var lastUse: UInt64
    }

    let capacity: Int
    // Invariant: `entries` and `uses` are only touched under `lock`.
    private let lock = NSLock()
    private var entries: [DocumentID: Entry] = [:]
    private var uses: UInt64 = 0

    init(capacity: Int = 8) {
        self.capacity = max(1, capacity)
    }

    /// The index of `document` as `doc` is now.
    func index(for document: DocumentID, doc: Doc, models: [ModelSchema]) throws(AccordError) -> RecordIndex {
        let found = lock.withLock { () -> Entry? in
            uses += 1
            guard var entry = entries[document], entry.doc === doc, entry.models == models else {
                entries[document] = nil
                return nil
            }
            entry.lastUse = uses
            entries[document] = entry
            return entry
        }
        if let entry = found {
            let changes = entry.tracker.take()
            if !changes.isEmpty {
                do {
                    try entry.index.project(document, doc: doc, changes: changes)
                } catch {
                    lock.withLock { entries[document] = nil }  // its changes are taken: rebuild next time
                    throw error
                }
            }
            return entry.index
        }
        let index = try RecordIndex(path: ":memory:")
        try index.register(models)
        let tracker = try RecordChangeTracker(doc: doc, models: models)
        try index.projectAll(document, doc: doc)
        lock.withLock {
            if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                entries[oldest] = nil
            }
            entries[document] = Entry(doc: doc, models: models, index: index, tracker: tracker, lastUse: uses)
        }
        return index
    }
}
