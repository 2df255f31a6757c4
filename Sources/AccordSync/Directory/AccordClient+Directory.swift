public import AccordCRDT
public import AccordStore

/// The directory on the client: the server's events (`PermissionEvent`,
/// `DocumentMetadataChangedEvent`) arriving on the `/v1/sync` connection, the metadata
/// cache they keep current, documents created here announced to the server, and
/// dropping the local copy of a document deleted or no longer accessible.
extension AccordClient {
    /// The server's code for a document deleted on it (`docs/server-api.md`).
    static let documentDeletedCode = ErrorCode(rawValue: "DOCUMENT_DELETED")
    static let permissionDeniedCode = ErrorCode(rawValue: "PERMISSION_DENIED")

    var directoryCache: DirectoryCache { DirectoryCache(storage: store.storage) }

    // MARK: Reading the cache

    /// The directory entry this client last heard for a document (from an event,
    /// ``syncMetadata()`` or a listing); nil when it has none. Offline and instant.
    public func cachedDocument(_ id: DocumentID) throws(AccordError) -> DocumentInfo? {
        try directoryCache.entry(id)
    }

    /// Every cached directory entry, by id.
    public func cachedDocuments() throws(AccordError) -> [DocumentInfo] {
        try directoryCache.all()
    }

    // MARK: Events from the server

    /// A connection-wide directory message from the server.
    func directoryMessageReceived(_ message: DirectoryMessage) {
        guard let id = DocumentID(rawValue: message.subjectDocumentID) else { return }
        switch message {
        case .permissionChanged(_, let permission, let previous, let cause):
            let now = permission.flatMap(DocumentPermission.init(rawValue:))
            bus.emit(.permission(PermissionEvent(
                documentID: id, permission: now, previous: previous.flatMap(DocumentPermission.init(rawValue:)),
                cause: cause)))
            // Writes were refused for want of a role the user now has: send them (the
            // parked edits are still in the store), as `resync(discardLocalChanges: false)` does.
            if let now, now >= .readWrite, writeRefusal(id)?.code == Self.permissionDeniedCode {
                Task { [weak self] in _ = try? await self?.resync(id, discardLocalChanges: false) }
            }
        case .entryChanged(_, let action, let entry):
            if action == DirectoryMessage.Action.updated, let entry {
                entryUpdated(id, json: Array(entry.utf8))
            } else {
                entryDeleted(id)
            }
        case .create:
            break  // client to server
        }
    }

    /// The server's entry for a document: cached, and an `updated` event when it differs
    /// from what was cached.
    func entryUpdated(_ id: DocumentID, json: [UInt8]) {
        guard !isStopped else { return }  // logged out: the store may be wiped
        do throws(AccordError) {
            let info = try DocumentInfo(json: json)
            guard info.id == id else { return }
            let previous = try directoryCache.entry(id)
            try directoryCache.store(json, for: id)
            // The server has the document: nothing left to announce.
            if directoryState.pending.remove(id) != nil { try directoryCache.clearPendingCreate(id) }
            // The store's own title and tags stay as the device set them: layers above
            // (AccordDatabase) name their documents by them. The server's are in the cache.
            guard previous?.cached != info.cached else { return }
            bus.emit(.metadataChanged(DocumentMetadataChangedEvent(documentID: id, action: .updated, document: info.cached)))
        } catch {
            bus.emit(.failure(id, error))
        }
    }

    /// The document was deleted on the server or the user lost access: forget its entry,
    /// close it, drop its local copy (a local-only document of the same id is kept: the
    /// server never had it), and tell the app.
    func entryDeleted(_ id: DocumentID) {
        guard !isStopped else { return }
        do throws(AccordError) {
            try directoryCache.remove(id)
            directoryState.pending.remove(id)
            close(id)
            if try store.contains(id), try !store.metadata(id).localOnly { try store.delete(id) }
        } catch {
            bus.emit(.failure(id, error))
        }
        bus.emit(.metadataChanged(DocumentMetadataChangedEvent(documentID: id, action: .deleted)))
    }

    /// This device dropped a document's local content.
    func emitEvicted(_ id: DocumentID) {
        bus.emit(.metadataChanged(DocumentMetadataChangedEvent(documentID: id, action: .evicted)))
    }

    // MARK: Announcing documents created here

    /// Remembers what a document created here tells the server when it first reaches it.
    func rememberCreate(_ id: DocumentID, _ create: PendingCreate) throws(AccordError) {
        try directoryCache.setPendingCreate(create, for: id)
        loadPendingCreates()
        directoryState.pending.insert(id)
    }

    /// Sends the document's `create` before its first frame on this connection, while
    /// the server has not confirmed it (an entry for it arrived, or it synced).
    func announceCreateIfPending(_ id: DocumentID, before frame: ProtocolFrame, on current: Connection) {
        loadPendingCreates()
        guard directoryState.pending.contains(id), directoryState.announced[id] != current.generation else { return }
        // A leave first would create the document only to leave it.
        if case .leave? = try? AccordMessage.decode(frame: frame) { return }
        guard let create = try? directoryCache.pendingCreate(id),
              let message = try? MultiplexedFrame(.directory(.create(
                  documentID: id.rawValue, title: create.title, tags: create.tags, metadata: create.metadata))).encode()
        else { return }
        directoryState.announced[id] = current.generation
        current.socket.send(message)
    }

    /// The document joined and synced: the server has it.
    func createConfirmed(_ id: DocumentID) {
        guard directoryState.pending.remove(id) != nil else { return }
        do throws(AccordError) {
            try directoryCache.clearPendingCreate(id)
        } catch {
            bus.emit(.failure(id, error))
        }
    }

    private func loadPendingCreates() {
        guard !directoryState.loaded else { return }
        directoryState.loaded = true
        directoryState.pending = (try? directoryCache.pendingCreateIDs()) ?? []
    }

    /// The documents created here that the server has not confirmed, with what they
    /// will tell it (for the local-first listing).
    func pendingCreates() throws(AccordError) -> [(id: DocumentID, create: PendingCreate)] {
        loadPendingCreates()
        var result: [(id: DocumentID, create: PendingCreate)] = []
        for id in directoryState.pending.sorted() {
            if let create = try directoryCache.pendingCreate(id) { result.append((id, create)) }
        }
        return result
    }

    // MARK: Logging out

    /// Stops the client (``stop()``); with `wipeLocal`, then removes everything the store
    /// holds: documents, unacknowledged edits, blobs, the metadata cache. The client
    /// cannot be started again; make a new one for the next user.
    public func logout(wipeLocal: Bool = false) throws(AccordError) {
        stop()
        directoryState.refresh?.cancel()
        guard wipeLocal else { return }
        try store.wipeAll()
        directoryState = DirectoryState()
    }
}

/// The client's in-memory view of pending creates (the storage holds the truth).
struct DirectoryState {
    var loaded = false
    var pending: Set<DocumentID> = []
    /// The connection generation each pending create was last sent on.
    var announced: [DocumentID: UInt64] = [:]
    /// The background ``AccordClient/syncMetadata()`` of a local-first listing, while it runs.
    var refresh: Task<Void, Never>?
}
