public import AccordCRDT
public import AccordStore

extension AccordClient {
    // MARK: Creating and opening

    /// Creates a document in the store and opens it. `localOnly` documents never reach
    /// the server, in this session or any later one (the flag is stored with them).
    /// Others carry `title`, `tags` and `metadata` to the server with their first frame
    /// (a `create` message), so the server's directory entry starts with them.
    /// - Parameter id: the new document's id; a random one (32 hex digits) by default.
    /// - Returns: the id.
    /// - Throws: `DOCUMENT_EXISTS`, `LOCAL_ONLY_UNSUPPORTED_OPTION` (a local-only document
    ///   with a sync mode other than `realtime`), `INVALID_ARGUMENT` (a title over 1024
    ///   bytes, more than 64 tags or one of 0 or over 256 bytes), `METADATA_TOO_LARGE`
    ///   (over 4096 bytes of JSON), the store's errors. A refusal creates nothing.
    @discardableResult
    public func create(
        _ id: DocumentID? = nil, title: String = "", tags: [String] = [], metadata: AnyValue? = nil,
        localOnly: Bool = false, syncMode: SyncMode = .realtime
    ) async throws(AccordError) -> DocumentID {
        try checkRunning()
        if localOnly, syncMode != .realtime { throw Self.localOnlyError(id, option: "syncMode") }
        let id = id ?? Self.randomDocumentID()
        let announced = try Self.pendingCreate(title: title, tags: tags, metadata: metadata)
        try store.create(id, title: title, tags: tags, localOnly: localOnly)
        if !localOnly {
            do {
                try rememberCreate(id, announced)
            } catch {
                try? store.delete(id)
                throw error
            }
        }
        try await open(id, syncMode: syncMode)
        return id
    }

    /// Opens a document and syncs it while connected. Idempotent: opening an open
    /// document changes nothing (a `.network` wait on one that has not heard from the
    /// server yet waits for it).
    ///
    /// `.local` returns at once from the store (a document the store lacks is created
    /// empty and fills as it syncs). `.network`, and `.localElseNetwork` when the store
    /// lacks the document (or evicted it), return only once the server's state has been
    /// applied, and never hang: offline they fail at once, and a server that does not
    /// answer within the handshake budget fails them with `NETWORK_TIMEOUT`. A failed
    /// network open leaves the store as it was (a document it created is removed again).
    /// - Parameters:
    ///   - enableNetworkSync: false opens the document with sync mode `realtimeSyncOff`
    ///     (nothing exchanged until ``setSyncMode(_:_:)``).
    ///   - syncMode: how the document syncs; changeable later with ``setSyncMode(_:_:)``.
    /// - Throws: `DOCUMENT_UNAVAILABLE_OFFLINE`, `NETWORK_TIMEOUT`, the server's refusal
    ///   (`DOC_ACCESS_DENIED`, `DOCUMENT_NOT_FOUND`, `DOCUMENT_UNAVAILABLE`),
    ///   `LOCAL_ONLY_UNSUPPORTED_OPTION` (a network wait or a sync mode for a local-only
    ///   document), `INVALID_ARGUMENT` (a network wait with `enableNetworkSync: false`),
    ///   `DOCUMENT_EVICTED` (`.local` on an evicted document), the store's errors.
    public func open(
        _ id: DocumentID, waitForLoad: WaitForLoad = .local, enableNetworkSync: Bool = true,
        syncMode: SyncMode = .realtime
    ) async throws(AccordError) {
        try checkRunning()
        if let document = documents[id] {
            if document.machine.localOnly, waitForLoad == .network { throw Self.localOnlyError(id, option: "waitForLoad") }
            guard waitForLoad == .network, document.machine.serverStatesReceived == 0 else { return }
            try checkCanLoadFromNetwork(id, syncs: document.machine.mode.exchanges)
            try await waitForServerState(document)
            return
        }
        let existing: DocumentMetadata? = try store.contains(id) ? store.metadata(id) : nil
        let needsNetwork = waitForLoad == .network || (waitForLoad == .localElseNetwork && existing?.isResident != true)
        if existing?.localOnly == true {
            if needsNetwork { throw Self.localOnlyError(id, option: "waitForLoad") }
            if syncMode != .realtime { throw Self.localOnlyError(id, option: "syncMode") }
        }
        if needsNetwork { try checkCanLoadFromNetwork(id, syncs: enableNetworkSync && syncMode.exchanges) }

        // Make the document resident: created empty, or an evicted one restored empty
        // (a network load then fills it; `.local` on an evicted document is refused by
        // the store's open below with DOCUMENT_EVICTED).
        var created = false
        var restored = false
        if existing == nil {
            try store.create(id)
            created = true
        } else if let existing, !existing.isResident, needsNetwork {
            try store.restore(id, snapshot: Self.emptyUpdate)
            restored = true
        }
        let document: OpenDocument
        do {
            document = try register(id, mode: enableNetworkSync ? syncMode : .realtimeSyncOff)
        } catch {
            undoResidency(id, created: created, restored: restored)
            throw error
        }
        guard needsNetwork else { return }
        do {
            try await waitForServerState(document)
        } catch {
            // Closed meanwhile by someone else: theirs to deal with.
            if documents[id] === document {
                close(id)
                undoResidency(id, created: created, restored: restored)
            }
            throw error
        }
    }

    /// Loads the document from the store and starts its machine.
    func register(_ id: DocumentID, mode: SyncMode) throws(AccordError) -> OpenDocument {
        let stored = try store.open(id)
        let metadata = try store.metadata(id)
        let document = OpenDocument(
            stored: stored,
            machine: DocumentSyncMachine(
                id: id, mode: mode, localOnly: metadata.localOnly, acknowledged: metadata.acknowledgedSequence,
                handshakeBudget: handshakeBudget, resyncInterval: resyncInterval),
            maxUndoDepth: maxUndoDepth)
        document.delivered = metadata.acknowledgedSequence
        documents[id] = document
        notifyOpened(document)
        if let hello = connection?.hello, network.isOnline { ready(document, hello: hello) }
        return document
    }

    /// After a failed network open: a document it created is deleted, one it restored is
    /// evicted again, unless edits were made meanwhile (they are kept).
    private func undoResidency(_ id: DocumentID, created: Bool, restored: Bool) {
        guard created || restored else { return }
        do throws(AccordError) {
            guard try !store.hasUnacknowledgedWrites(id) else { return }
            if created { try store.delete(id) } else { try store.evict(id) }
        } catch {
            bus.emit(.failure(id, error))
        }
    }

    // MARK: Closing and evicting

    /// Stops syncing a document and flushes what its `Doc` logged. Its unacknowledged
    /// edits stay in the store and are sent when it is opened again. With `evictLocal`,
    /// the local content is then dropped too (``evict(_:force:)``), unless unacknowledged
    /// edits exist: then eviction is skipped and `evicted` is false. Closing a document
    /// that is not open does nothing (`evicted` false).
    @discardableResult
    public func close(_ id: DocumentID, evictLocal: Bool = false) -> CloseResult {
        guard let document = documents.removeValue(forKey: id) else { return CloseResult(evicted: false) }
        document.tickTimer?.cancel()
        failLoads(document, with: Self.notOpenError(id))
        presenceClosing(document)
        // Tell the server, so it stops sending this document on the shared connection.
        // A local-only document was never joined: not a byte about it leaves.
        if !document.machine.localOnly { sendLeave(id) }
        do throws(AccordError) {
            // Observers hear of the close once the store flushed the document, so the
            // log position they read is final; also when the flush failed.
            defer { notifyClosed(id) }
            try document.stored.close()
            // A local-only document's content exists nowhere else: never dropped by a close.
            guard evictLocal, !document.machine.localOnly, try !store.hasUnacknowledgedWrites(id) else {
                return CloseResult(evicted: false)
            }
            try store.evict(id)
            emitEvicted(id)
            return CloseResult(evicted: true)
        } catch {
            bus.emit(.failure(id, error))
            return CloseResult(evicted: false)
        }
    }

    /// Drops a document's local content (closing it first if open); its metadata stays.
    /// Opening it again needs the network (`.network` or `.localElseNetwork`).
    /// - Throws: `UNACKNOWLEDGED_WRITES` while the server has not acknowledged every
    ///   local edit, unless `force` (they are then lost); `LOCAL_ONLY_UNSUPPORTED_OPTION`
    ///   for a local-only document unless `force` (its content exists nowhere else, and
    ///   is then gone); `DOCUMENT_NOT_FOUND`.
    public func evict(_ id: DocumentID, force: Bool = false) throws(AccordError) {
        if !force, try store.metadata(id).localOnly { throw Self.localOnlyError(id, option: "evict") }
        if !force, try store.hasUnacknowledgedWrites(id) {
            throw AccordError(
                .unacknowledgedWrites, "document \(id) has local edits the server has not acknowledged",
                details: ["document": id.rawValue])
        }
        close(id)
        try store.evict(id, force: force)
        emitEvicted(id)
    }

    // MARK: Helpers

    /// The directory's limits (`docs/server-api.md`), checked before anything is created.
    static func pendingCreate(
        title: String, tags: [String], metadata: AnyValue?
    ) throws(AccordError) -> PendingCreate {
        var text: String?
        if let metadata {
            let json = metadata.jsonText
            guard json.utf8.count <= DirectoryMessage.maxMetadataBytes else {
                throw AccordError(
                    ErrorCode(rawValue: "METADATA_TOO_LARGE"),
                    "metadata is \(json.utf8.count) bytes as JSON; the limit is \(DirectoryMessage.maxMetadataBytes)",
                    details: ["field": "metadata", "limit": String(DirectoryMessage.maxMetadataBytes)])
            }
            text = json
        }
        let create = PendingCreate(title: title, tags: tags, metadata: text)
        do throws(AccordError) {
            // The codec holds the same rules the server applies.
            _ = try AccordMessage.directory(.create(documentID: "x", title: title, tags: tags, metadata: text)).frame()
        } catch {
            throw AccordError(.invalidArgument, error.message, details: error.details)
        }
        return create
    }

    /// Offline means no connection and none being attempted (pinned offline, waiting out
    /// a reconnect backoff, or not started).
    var isOfflineNow: Bool {
        !isStarted || network.mode == .offline || (!network.isOnline && !network.isConnecting)
    }

    private func checkCanLoadFromNetwork(_ id: DocumentID, syncs: Bool) throws(AccordError) {
        guard syncs else {
            throw AccordError(
                .invalidArgument, "document \(id) cannot wait for the network with network sync disabled",
                details: ["document": id.rawValue])
        }
        if isOfflineNow { throw Self.offlineError(id) }
    }

    func checkRunning() throws(AccordError) {
        if isStopped { throw AccordError(.invalidArgument, "the client was stopped") }
    }

    static let emptyUpdate: [UInt8] = [0, 0]

    static func randomDocumentID() -> DocumentID {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        // 32 hex digits always form a valid id.
        return DocumentID(rawValue: HexText.encode(bytes))!
    }

    static func offlineError(_ id: DocumentID?) -> AccordError {
        AccordError(
            .documentUnavailableOffline,
            id.map { "document \($0) needs the network and the client is offline" } ?? "the client went offline",
            details: id.map { ["document": $0.rawValue] } ?? [:])
    }

    static func localOnlyError(_ id: DocumentID?, option: String) -> AccordError {
        AccordError(
            .localOnlyUnsupportedOption, "\(option) needs the server; document \(id?.rawValue ?? "") is local-only",
            details: ["document": id?.rawValue ?? "", "option": option])
    }

    static func notOpenError(_ id: DocumentID) -> AccordError {
        AccordError(.documentNotOpen, "document \(id) is not open in this client", details: ["document": id.rawValue])
    }
}
