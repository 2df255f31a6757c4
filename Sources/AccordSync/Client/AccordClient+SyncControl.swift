public import AccordCRDT
public import AccordStore

extension AccordClient {
    // MARK: Sync modes

    /// The document's sync mode; nil if it is not open.
    public func syncMode(_ id: DocumentID) -> SyncMode? { documents[id]?.machine.mode }

    /// Changes how an open document syncs, at any time (see ``SyncMode``). Connected,
    /// the new mode starts as it would on connect.
    /// - Throws: `DOCUMENT_NOT_OPEN`; `LOCAL_ONLY_UNSUPPORTED_OPTION` for a local-only
    ///   document (it never syncs, whatever the mode).
    public func setSyncMode(_ id: DocumentID, _ mode: SyncMode) throws(AccordError) {
        let document = try openDocument(id)
        if document.machine.localOnly { throw Self.localOnlyError(id, option: "syncMode") }
        perform(document.machine.setMode(mode, now: now), for: document)
    }

    /// Runs a sync round for the document now (its step 1 and every unacknowledged
    /// update), in any mode but `realtimeSyncOff`; offline, at the next connection. The
    /// way a `manual` document syncs.
    /// - Throws: `DOCUMENT_NOT_OPEN`, `LOCAL_ONLY_UNSUPPORTED_OPTION`.
    public func sync(_ id: DocumentID) throws(AccordError) {
        let document = try openDocument(id)
        if document.machine.localOnly { throw Self.localOnlyError(id, option: "sync") }
        perform(document.machine.syncRequested(now: now), for: document)
        blobSyncRequested(id)
    }

    /// Why the server refuses the document's writes (it is parked), or nil.
    public func writeRefusal(_ id: DocumentID) -> AccordError? { documents[id]?.machine.parked }

    // MARK: Resync

    /// Gets a parked document (its writes refused, see ``WriteRejectedEvent``) going again.
    ///
    /// Either way the document leaves the server's room and joins it again, so the server
    /// looks up this user's role afresh. With `discardLocalChanges: false`, the refused
    /// changes are sent again (for when the refusal no longer holds, e.g. write access
    /// was granted); returns `[]`.
    ///
    /// With `discardLocalChanges: true`, every local change the server has not
    /// acknowledged is dropped from the store, and the document, still open under the
    /// same id, is re-anchored on the server's state: its content is reloaded from the
    /// server into a new `Doc` (observers registered on the previous `Doc` no longer
    /// fire; register them again inside ``withDocument(_:_:)``). Returns the dropped
    /// updates, also announced as a ``LocalChangesDroppedEvent``.
    /// - Throws: `DOCUMENT_NOT_OPEN`, `LOCAL_ONLY_UNSUPPORTED_OPTION`,
    ///   `DOCUMENT_UNAVAILABLE_OFFLINE`, `NETWORK_TIMEOUT` (the changes are dropped
    ///   already; the document fills once the server answers).
    @discardableResult
    public func resync(_ id: DocumentID, discardLocalChanges: Bool) async throws(AccordError) -> [[UInt8]] {
        let document = try openDocument(id)
        if document.machine.localOnly { throw Self.localOnlyError(id, option: "resync") }
        if isOfflineNow { throw Self.offlineError(id) }
        // Leave and join again: the server decides the role at join time, so a rejoin
        // is what makes a permission granted meanwhile count.
        sendLeave(id)
        guard discardLocalChanges else {
            // Steps recorded before the resync are not undone across it.
            document.undoManager.clear()
            perform(document.machine.unpark(now: now), for: document)
            return []
        }
        try store.flush()
        let dropped = try store.unacknowledgedUpdates(id).map(\.value)
        // Stop logging the old Doc, then drop the local content with its refused
        // changes, and start again from an empty resident copy filled by the server.
        document.tickTimer?.cancel()
        document.presenceTimer?.cancel()
        do throws(AccordError) {
            try document.stored.close()
        } catch {
            notifyClosed(id)
            throw error
        }
        // After the flush, so observers read the final log position of the old Doc.
        notifyClosed(id)
        documents[id] = nil
        try store.evict(id, force: true)
        try store.restore(id, snapshot: Self.emptyUpdate)
        let replacement = try register(id, mode: document.machine.mode)
        failLoads(document, with: Self.notOpenError(id))
        // The app's presence carries over, under the new Doc's client id (the leave
        // above removed the old entry).
        if case .object(let mine)? = document.presence.myPresence {
            var fields: [String: AnyValue] = [:]
            for key in mine.keys { fields[key] = mine[key] }
            try setPresence(id, fields)
        }
        bus.emit(.localChangesDropped(LocalChangesDroppedEvent(documentID: id, updates: dropped)))
        try await waitForServerState(replacement)
        return dropped
    }

    func openDocument(_ id: DocumentID) throws(AccordError) -> OpenDocument {
        guard let document = documents[id] else { throw Self.notOpenError(id) }
        return document
    }
}
