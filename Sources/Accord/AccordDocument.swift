/// An open document of an ``AccordClient``: a handle that names it (by id) and reaches
/// it through the client. Stays valid across `resync` (which replaces the document's
/// `Doc` under the same id); using it after the document was closed throws
/// `DOCUMENT_NOT_OPEN`.
public struct AccordDocument: Sendable, Hashable {
    public let id: DocumentID
    public let client: AccordClient

    public init(id: DocumentID, client: AccordClient) {
        self.id = id
        self.client = client
    }

    public static func == (a: AccordDocument, b: AccordDocument) -> Bool { a.id == b.id && a.client === b.client }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Runs `body` with the document's `Doc` on the client's queue, in one transaction.
    /// Edits made in it are local changes: stored, then sent once durable. When `body`
    /// throws, none of its edits happened (nothing is stored or sent) and the error is
    /// rethrown. Undo and redo are refused inside it (`REFUSED`), and `canUndo` /
    /// `canRedo` of `doc.undoManager` are false while it runs.
    /// - Throws: `DOCUMENT_NOT_OPEN`, or what `body` throws.
    public func edit<T: Sendable>(_ body: @Sendable (Doc) throws -> T) async throws -> T {
        try await client.edit(id, body)
    }

    /// Reverts the newest step of this replica's own edits (remote edits are never
    /// undone); the revert is a local edit, stored and sent.
    /// - Returns: whether something was reverted.
    /// - Throws: `DOCUMENT_NOT_OPEN`, the store's errors.
    @discardableResult
    public func undo() async throws(AccordError) -> Bool { try await client.undo(id) }

    /// Reapplies the newest undone step.
    /// - Returns: whether something was reapplied.
    @discardableResult
    public func redo() async throws(AccordError) -> Bool { try await client.redo(id) }

    /// Whether ``undo()`` has something to revert.
    public var canUndo: Bool { get async { await client.canUndo(id) } }

    /// Whether ``redo()`` has something to reapply.
    public var canRedo: Bool { get async { await client.canRedo(id) } }

    /// Forgets the undo and redo steps (done for you after opening and after a `resync`).
    public func clearHistory() async throws(AccordError) { try await client.clearHistory(id) }

    /// Whether the last sync round finished and the server acknowledged every edit sent.
    public var isSynced: Bool { get async { await client.isSynced(id) } }

    /// The sync mode; nil once the document is closed.
    public var syncMode: SyncMode? { get async { await client.syncMode(id) } }

    /// Changes how the document syncs (see ``SyncMode``).
    public func setSyncMode(_ mode: SyncMode) async throws(AccordError) { try await client.setSyncMode(id, mode) }

    /// Runs a sync round now (how a `manual` document syncs).
    public func sync() async throws(AccordError) { try await client.sync(id) }

    /// See ``AccordClient/resync(_:discardLocalChanges:)``.
    @discardableResult
    public func resync(discardLocalChanges: Bool) async throws(AccordError) -> [[UInt8]] {
        try await client.resync(id, discardLocalChanges: discardLocalChanges)
    }

    /// The document's events only, of one type (those that name a document).
    public func stream<Event: DocumentEvent>(for type: Event.Type) -> AsyncStream<Event> {
        let id = id
        return client.stream(for: type) { $0.documentID == id }
    }
}
