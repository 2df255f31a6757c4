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
/// A detached index (``adopt(_:file:for:models:stored:)``) follows no `Doc`: an
/// ingest that wrote new records as one update without loading the document built it
/// from the records themselves, in a file (a million records' rows cost hundreds of
/// megabytes in memory). It answers while the stored document is as it was then
/// (``detachedIndex(for:models:stored:)``, asked with no room loaded); once a
/// room holds the document, the room's `Doc` gets an index of its own as above.
///
/// Called by REST work holding the document's room (a lease, `SyncHub+Lease.swift`), so
/// one document's entry is used by one thread at a time while others use theirs; the
/// table itself is shared, behind `lock` (the invariant behind `@unchecked Sendable`).
/// A table lookup never waits for another document's projection.
final class ServerRecordIndexes: @unchecked Sendable {
    private struct Entry {
        /// Nil for a detached index.
        let doc: Doc?
        let models: [ModelSchema]
        let index: RecordIndex
        /// Nil for a detached index.
        let tracker: RecordChangeTracker?
        /// A detached index: the stored document its rows are current with, and its file.
        var stored: StoredVersion? = nil
        var file: IndexFile? = nil
        var lastUse: UInt64
    }

    /// Which stored document, and how far its log goes: a detached index is current
    /// while all three are unchanged (`created` tells a document deleted and made
    /// again under the same id, whose sequences start over; the snapshot sequence, a
    /// restore of its content).
    struct StoredVersion: Hashable {
        let created: Date
        let lastSequence: UInt64
        let snapshotSequence: UInt64

        init(_ metadata: DocumentMetadata) {
            created = metadata.created
            lastSequence = metadata.lastSequence
            snapshotSequence = metadata.snapshotSequence
        }
    }

    /// A detached index's SQLite file, removed with the entry (the connection may still
    /// be open a moment longer: on Linux an unlinked file lives until it is closed).
    final class IndexFile: Sendable {
        let path: String

        init(in directory: String) {
            path = directory + "/accord-index-\(UInt64.random(in: .min ... .max)).sqlite"
        }

        deinit {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
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
        let found = lock.withLock { () -> (RecordIndex, RecordChangeTracker)? in
            uses += 1
            guard var entry = entries[document], let tracker = entry.tracker, entry.doc === doc, entry.models == models else {
                entries[document] = nil
                return nil
            }
            entry.lastUse = uses
            entries[document] = entry
            return (entry.index, tracker)
        }
        if let found {
            let (index, tracker) = found
            let changes = tracker.take()
            if !changes.isEmpty {
                do {
                    try index.project(document, doc: doc, changes: changes)
                } catch {
                    lock.withLock { entries[document] = nil }  // its changes are taken: rebuild next time
                    throw error
                }
            }
            return index
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

    /// The detached index of `document` when it is current: built for `models`, and the
    /// stored document is still the version it was built from. Ask with no room loaded
    /// (a room's edits reach the store, which this checks, but its `Doc` first).
    func detachedIndex(for document: DocumentID, models: [ModelSchema], stored: StoredVersion) -> RecordIndex? {
        lock.withLock { () -> RecordIndex? in
            uses += 1
            guard var entry = entries[document], entry.doc == nil, entry.models == models,
                  entry.stored == stored
            else { return nil }
            entry.lastUse = uses
            entries[document] = entry
            return entry.index
        }
    }

    /// Keeps `index` (in `file`), built for `models` from the records of `document` as
    /// stored in version `stored`, as its detached index, replacing what was kept.
    func adopt(_ index: RecordIndex, file: IndexFile, for document: DocumentID, models: [ModelSchema], stored: StoredVersion) {
        lock.withLock {
            uses += 1
            entries[document] = nil
            if entries.count >= capacity, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
                entries[oldest] = nil
            }
            entries[document] = Entry(
                doc: nil, models: models, index: index, tracker: nil, stored: stored, file: file, lastUse: uses)
        }
    }
}
