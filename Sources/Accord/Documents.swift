/// The documents API of an ``AccordClient``: `client.documents.create(...)`,
/// `.open(...)`, `.close(...)`, `.evict(...)`, `.list()`. Each opened document comes
/// back as an ``AccordDocument`` handle.
public struct Documents: Sendable {
    public let client: AccordClient

    /// Creates a document (a random id unless given) and opens it. A `localOnly`
    /// document never reaches the server, in this session or any later one.
    public func create(
        _ id: DocumentID? = nil, title: String = "", tags: [String] = [], metadata: AnyValue? = nil,
        localOnly: Bool = false
    ) async throws(AccordError) -> AccordDocument {
        let id = try await client.create(id, title: title, tags: tags, metadata: metadata, localOnly: localOnly)
        return AccordDocument(id: id, client: client)
    }

    /// Opens a document; idempotent. See ``AccordClient/open(_:waitForLoad:enableNetworkSync:syncMode:)``
    /// for what each `waitForLoad` waits for and the errors.
    public func open(
        _ id: DocumentID, waitForLoad: WaitForLoad = .local, enableNetworkSync: Bool = true,
        syncMode: SyncMode = .realtime
    ) async throws(AccordError) -> AccordDocument {
        try await client.open(id, waitForLoad: waitForLoad, enableNetworkSync: enableNetworkSync, syncMode: syncMode)
        return AccordDocument(id: id, client: client)
    }

    /// Closes a document; with `evictLocal`, drops its local content too unless the
    /// server has not acknowledged every edit (then `evicted` is false).
    @discardableResult
    public func close(_ id: DocumentID, evictLocal: Bool = false) async -> CloseResult {
        await client.close(id, evictLocal: evictLocal)
    }

    /// Drops a document's local content; `UNACKNOWLEDGED_WRITES` unless every edit was
    /// acknowledged or `force`.
    public func evict(_ id: DocumentID, force: Bool = false) async throws(AccordError) {
        try await client.evict(id, force: force)
    }

    /// Every document in the client's store (open or not), with its metadata.
    public func list() throws(AccordError) -> [DocumentMetadata] {
        try client.store.documents()
    }
}

extension AccordClient {
    /// The documents API: create, open, close, evict, list.
    public nonisolated var documents: Documents { Documents(client: self) }
}
