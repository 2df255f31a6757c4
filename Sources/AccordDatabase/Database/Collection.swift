public import AccordCRDT

/// A collection of JSON documents, ids unique within it. A handle: cheap to get again
/// from the ``Database``; its calls throw `COLLECTION_NOT_FOUND` once the collection is
/// deleted and `DATABASE_CLOSED` once the database is closed.
public final class Collection: Sendable {
    public let name: String
    public let scope: Scope
    public let database: Database
    let key: CollectionKey

    /// The top-level keys a document may not have: Couchbase Lite's (and its sync
    /// protocol's) own. Other keys starting with `_` are allowed.
    public static let reservedKeys: Set<String> = ["_id", "_rev", "_deleted", "_attachments", "_removed", "_sequence"]

    init(database: Database, key: CollectionKey) {
        self.database = database
        self.key = key
        name = key.name
        scope = Scope(name: key.scope)
    }

    /// How many documents the collection holds (not counting deleted or purged ones);
    /// 0 when the collection or the database is gone.
    public var count: Int {
        (try? database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            if database.batch?.staged[key] != nil { return try stagedCount(open) }
            return try open.table.count(collection: key.tableName)
        }) ?? 0
    }

    /// The document, or nil when there is none with this id (or it was deleted or purged).
    public func document(id: String) throws(AccordError) -> Document? {
        try database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            guard case .saved(let object, let sequence)? = try database.currentState(key, id, in: open) else {
                return nil
            }
            return Document(id: id, sequence: sequence, stored: object, blobs: open.blobs)
        }
    }

    /// Saves the document, with ``ConcurrencyControl/lastWriteWins``.
    public func save(document: MutableDocument) throws(AccordError) {
        _ = try save(document: document, concurrencyControl: .lastWriteWins)
    }

    /// Saves the properties changed since the document was read, as CRDT edits (a new
    /// document: all of them, replacing whatever the id held). The document then holds
    /// what was stored (merged with what others wrote to keys it did not change) and its
    /// new ``Document/sequence``.
    ///
    /// - Returns: false when `concurrencyControl` is `.failOnConflict` and the document
    ///   changed since it was read (nothing is written then); true otherwise.
    /// - Throws: `RESERVED_KEY` for a reserved top-level key, `INVALID_VALUE` for a
    ///   value JSON cannot hold (see ``MutableProperties``), `INVALID_ARGUMENT` for an id
    ///   that is empty or longer than 250 bytes; nothing is written then.
    public func save(document: MutableDocument, concurrencyControl: ConcurrencyControl) throws(AccordError) -> Bool {
        try Self.validate(id: document.id)
        try storeBlobs(of: document)
        guard case .object(let current) = try document.json(depth: 0) else { return false }
        if let reserved = current.keys.first(where: Self.reservedKeys.contains) {
            throw AccordError(
                .reservedKey, "the top-level key \"\(reserved)\" is reserved", details: ["key": reserved, "document": document.id])
        }
        return try write(document, concurrencyControl, current: current) {
            .save(base: $0 == nil ? nil : document.base, current: current)
        }
    }

    /// Deletes the document, with ``ConcurrencyControl/lastWriteWins``.
    public func delete(document: Document) throws(AccordError) {
        _ = try delete(document: document, concurrencyControl: .lastWriteWins)
    }

    /// Deletes the document: its key is deleted in the collection's CRDT document, which
    /// syncs (an edit another device makes to it concurrently is lost there too), and a
    /// tombstone row keeps its sequence. `DOCUMENT_NOT_FOUND` when there is no such document.
    ///
    /// - Returns: false when `.failOnConflict` and it changed since it was read.
    public func delete(document: Document, concurrencyControl: ConcurrencyControl) throws(AccordError) -> Bool {
        try database.withOpen { open throws(AccordError) in
            guard case .saved? = try database.currentState(key, document.id, in: open) else {
                throw notFound(document.id)
            }
            return try write(document, concurrencyControl) { _ in .delete }
        }
    }

    /// Removes the document from this device only: not replicated, no tombstone. Its
    /// content stays in the collection's CRDT document (other devices still have it), and
    /// it comes back if another device changes it later. `DOCUMENT_NOT_FOUND` when absent.
    public func purge(id: String) throws(AccordError) {
        try database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            guard case .saved? = try database.currentState(key, id, in: open) else { throw notFound(id) }
            try database.perform { _, next throws(AccordError) in
                // A purge takes no sequence: the document is gone from here, not changed.
                PendingBatch.Write(key: key, id: id, kind: .purge, sequence: next - 1, document: nil)
            }
        }
    }

    public func purge(document: Document) throws(AccordError) { try purge(id: document.id) }

    // MARK: Helpers

    /// Puts the document's new blobs into the blob store before its JSON is taken (the
    /// JSON then holds their digests). A blob stays stored if the save is refused or its
    /// batch rolled back; it is referenced by the collection, so garbage collection keeps it.
    private func storeBlobs(of document: MutableDocument) throws(AccordError) {
        let unsaved = document.unsavedBlobs()
        guard !unsaved.isEmpty else { return }
        try database.withOpen { open throws(AccordError) in
            let id = try key.documentID()
            for blob in unsaved { try blob.store(into: open.blobs, referencedBy: id) }
        }
    }

    /// Checks the concurrency rule and stages the write. `kind` receives the current
    /// stored content (nil when the document does not exist now).
    private func write(
        _ document: Document, _ control: ConcurrencyControl, current: OrderedObject? = nil,
        _ kind: (OrderedObject?) -> PendingBatch.Kind
    ) throws(AccordError) -> Bool {
        try database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            let state = try database.currentState(key, document.id, in: open)
            var existing: OrderedObject?
            var currentSequence: UInt64 = 0
            if case .saved(let object, let sequence)? = state {
                existing = object
                currentSequence = sequence
            } else if case .deleted(let sequence)? = state, document.sequence != 0 {
                currentSequence = sequence
            }
            if control == .failOnConflict, currentSequence != document.sequence { return false }
            let writeKind = kind(existing)
            var knownResult: OrderedObject?
            if case .save(let base, _) = writeKind, base == nil || (existing != nil && base == existing) {
                knownResult = current
            }
            try database.perform { _, sequence throws(AccordError) in
                PendingBatch.Write(
                    key: key, id: document.id, kind: writeKind, sequence: sequence, document: document,
                    knownResult: knownResult)
            }
            return true
        }
    }

    private func stagedCount(_ open: Database.OpenState) throws(AccordError) -> Int {
        var count = try open.table.count(collection: key.tableName)
        for (id, staged) in database.batch?.staged[key] ?? [:] {
            let row = try open.table.row(collection: key.tableName, id: id)
            let wasVisible = row?.isVisible ?? false
            var isVisible = false
            if case .saved = staged { isVisible = true }
            count += (isVisible ? 1 : 0) - (wasVisible ? 1 : 0)
        }
        return count
    }

    private func notFound(_ id: String) -> AccordError {
        AccordError(
            .documentNotFound, "no document \(id) in the collection \(name)", details: ["document": id, "collection": name])
    }

    static func validate(id: String) throws(AccordError) {
        let count = id.utf8.count
        guard (1...250).contains(count) else {
            throw AccordError(.invalidArgument, "a document id has 1 to 250 bytes of UTF-8, not \(count)", details: ["document": id])
        }
    }
}
