public import AccordCRDT
public import AccordStore

/// Undo and redo of an open document's local edits: each open document has an
/// ``UndoManager`` over the whole document (made when it is opened, and again when a
/// `resync` replaces its `Doc`), also reachable inside ``edit(_:_:)`` as
/// `doc.undoManager`. Remote changes are never undone. An undo or redo is a local edit
/// like any other: stored, then sent.
extension AccordClient {
    /// Reverts the document's newest local step.
    /// - Returns: whether something was reverted.
    /// - Throws: `DOCUMENT_NOT_OPEN`, the store's errors.
    @discardableResult
    public func undo(_ id: DocumentID) throws(AccordError) -> Bool {
        let document = try openDocument(id)
        let changed = try document.undoManager.undo()
        try flushIfNoTimer()
        return changed
    }

    /// Reapplies the document's newest undone step.
    /// - Returns: whether something was reapplied.
    /// - Throws: `DOCUMENT_NOT_OPEN`, the store's errors.
    @discardableResult
    public func redo(_ id: DocumentID) throws(AccordError) -> Bool {
        let document = try openDocument(id)
        let changed = try document.undoManager.redo()
        try flushIfNoTimer()
        return changed
    }

    /// Whether ``undo(_:)`` has a step to revert (false for a document not open).
    public func canUndo(_ id: DocumentID) -> Bool { documents[id]?.undoManager.canUndo ?? false }

    /// Whether ``redo(_:)`` has a step to reapply (false for a document not open).
    public func canRedo(_ id: DocumentID) -> Bool { documents[id]?.undoManager.canRedo ?? false }

    /// Forgets the document's undo and redo steps (done for you when it is opened and
    /// after a `resync`).
    /// - Throws: `DOCUMENT_NOT_OPEN`.
    public func clearHistory(_ id: DocumentID) throws(AccordError) {
        try openDocument(id).undoManager.clear()
    }

    /// Runs `body` with the document's `Doc` in one transaction: when `body` throws, the
    /// document is left exactly as before (nothing stored, sent or observed) and the
    /// error is rethrown. Undo and redo are refused inside it (`REFUSED`).
    /// - Throws: `DOCUMENT_NOT_OPEN`, or what `body` throws.
    public func edit<T: Sendable>(_ id: DocumentID, _ body: @Sendable (Doc) throws -> T) throws -> T {
        let document = try openDocument(id)
        let doc = document.stored.doc
        let result = try doc.transact { try body(doc) }
        try flushIfNoTimer()
        return result
    }

    /// Without a flush timer nothing would make an edit durable, so nothing would send it.
    private func flushIfNoTimer() throws(AccordError) {
        if store.options.flushDelay == nil { try store.flush() }
    }
}
