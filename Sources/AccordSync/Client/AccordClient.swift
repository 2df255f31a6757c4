public import AccordCRDT
public import AccordStore
import AccordNet

/// The client sync engine's driver: one connection to an Accord server's `/v1/sync`
/// endpoint carrying every open document, run by the pure machines of this module
/// (``DocumentSyncMachine`` per document, ``NetworkModeMachine`` with its
/// ``ReconnectPolicy``, a ``HeartbeatMonitor`` per connection).
///
/// Documents live in the ``DocumentStore``: ``open(_:)`` loads one and logs every
/// transaction of its `Doc`; local edits go to the server once the store made them
/// durable, and stay in the store until the server acknowledged them, so a client
/// stopped or killed with unacknowledged edits resends them from the same store next
/// time. Remote updates are applied with `DocumentStore.remoteOrigin`, which logs them
/// as received.
///
/// ```swift
/// let client = AccordClient(serverURL: "ws://127.0.0.1:8787", store: store) { token }
/// await client.start()
/// try await client.open("notes")
/// try await client.withDocument("notes") { doc in try doc.getText("t").insert(0, "hi") }
/// for await event in client.events { ... }
/// ```
///
/// The client runs on a serial Dispatch queue of its own (see ``ClientExecutor``), so
/// its synchronous store calls never block Swift's cooperative threads. Each `Doc`
/// belongs to the client: read and edit it inside ``withDocument(_:_:)``.
///
/// Not built yet: presence and awareness, sending broadcasts, `waitForLoad` modes,
/// `resync`, token refresh on `UNAUTHENTICATED` (the token provider is simply asked
/// again at each connection attempt), per-document sync mode changes (every document
/// syncs `realtime`).
public actor AccordClient {
    /// What the client tells the app. One consumer; finishes after ``stop()``.
    public nonisolated let events: AsyncStream<ClientEvent>
    public nonisolated let store: DocumentStore
    /// `ws://host:port` (or with a path prefix); `/v1/sync?token=…` is appended.
    public nonisolated let serverURL: String

    let tokenProvider: @Sendable () async throws -> String
    let handshakeBudget: UInt64
    let resyncInterval: UInt64?
    let eventSink: AsyncStream<ClientEvent>.Continuation
    let executor = ClientExecutor(label: "accord.client")
    let clock = ContinuousClock()
    let epoch: ContinuousClock.Instant

    var network: NetworkModeMachine
    var random = SystemRandomNumberGenerator()
    var documents: [DocumentID: OpenDocument] = [:]
    var connection: Connection?
    /// Bumped whenever a connection attempt starts or a connection is dropped, so
    /// events of an abandoned socket are recognized and ignored.
    var generation: UInt64 = 0
    var reconnectTimer: Task<Void, Never>?
    var heartbeatTimer: Task<Void, Never>?
    var storeSubscription: StoreSubscription?
    var storeTask: Task<Void, Never>?
    var isStarted = false
    var isStopped = false

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// - Parameters:
    ///   - serverURL: the server's address, `ws://host:port`.
    ///   - store: where documents and unacknowledged edits live.
    ///   - reconnect: the backoff after a lost connection or a failed attempt.
    ///   - handshakeBudget: how long (ms) a document's sync may go unanswered before a
    ///     `syncError(NETWORK_TIMEOUT)` and a retry.
    ///   - resyncInterval: how often (ms) each open document asks the server for what it
    ///     may have missed (``DocumentSyncMachine/defaultResyncInterval``); nil never.
    ///   - tokenProvider: asked for a bearer token before each connection attempt.
    public init(
        serverURL: String, store: DocumentStore, reconnect: ReconnectPolicy = ReconnectPolicy(),
        handshakeBudget: UInt64 = DocumentSyncMachine.defaultHandshakeBudget,
        resyncInterval: UInt64? = DocumentSyncMachine.defaultResyncInterval,
        tokenProvider: @escaping @Sendable () async throws -> String
    ) {
        self.handshakeBudget = handshakeBudget
        self.resyncInterval = resyncInterval
        var url = serverURL
        while url.hasSuffix("/") { url.removeLast() }
        self.serverURL = url
        self.store = store
        self.tokenProvider = tokenProvider
        self.network = NetworkModeMachine(reconnect: reconnect)
        (events, eventSink) = AsyncStream.makeStream(of: ClientEvent.self)
        epoch = clock.now
    }

    // MARK: Lifecycle

    /// Starts listening to the store and connects (unless pinned offline). Idempotent.
    public func start() {
        guard !isStarted, !isStopped else { return }
        isStarted = true
        let (changes, sink) = AsyncStream.makeStream(of: DocumentChange.self)
        storeSubscription = store.observeChanges { change in
            if case .appended = change.kind { sink.yield(change) }
        }
        storeTask = Task { [weak self] in
            for await change in changes {
                guard let self else { return }
                await self.storeAppended(change.id)
            }
        }
        perform(network.start())
    }

    /// Closes the connection, closes every open document (flushing what it logged)
    /// and ends ``events``. Unacknowledged edits stay in the store for the next client.
    public func stop() {
        guard !isStopped else { return }
        isStopped = true
        dropConnection(closeSocket: true)
        reconnectTimer?.cancel()
        storeSubscription?.cancel()
        storeTask?.cancel()
        for id in Array(documents.keys) { close(id) }
        eventSink.finish()
    }

    /// A client released without ``stop()`` lets go of the store's notifications and
    /// its socket; its documents' `StoredDocument`s stop logging as they are released.
    deinit {
        storeSubscription?.cancel()
        storeTask?.cancel()
        reconnectTimer?.cancel()
        heartbeatTimer?.cancel()
        connection?.socket.close()
        connection?.reader.cancel()
        eventSink.finish()
    }

    // MARK: Network mode

    /// Whether a connection is established (the server's hello arrived).
    public var isOnline: Bool { network.isOnline }
    public var networkMode: NetworkMode { network.mode }

    /// Pins the client offline: the connection is closed and not rebuilt; edits stay in the store.
    public func goOffline() { perform(network.goOffline()) }
    /// Pins the client online: connects now if not connected.
    public func goOnline() { perform(network.goOnline()) }
    /// Back to `auto` (the default): connected, reconnecting with backoff when lost.
    public func useAutomaticMode() { perform(network.useAutomaticMode()) }

    // MARK: Documents

    /// Opens a document from the store (creating it if missing) and syncs it while
    /// connected. Idempotent.
    /// - Throws: the store's errors (`DOCUMENT_EVICTED`, `STORAGE_CORRUPT`, `STORE_CLOSED`).
    public func open(_ id: DocumentID) throws(AccordError) {
        guard documents[id] == nil else { return }
        let stored = try store.open(id, createIfMissing: true)
        let metadata = try store.metadata(id)
        let document = OpenDocument(
            stored: stored,
            machine: DocumentSyncMachine(
                id: id, localOnly: metadata.localOnly, acknowledged: metadata.acknowledgedSequence,
                handshakeBudget: handshakeBudget, resyncInterval: resyncInterval))
        document.delivered = metadata.acknowledgedSequence
        documents[id] = document
        if let hello = connection?.hello, network.isOnline { ready(document, hello: hello) }
    }

    /// Stops syncing a document and flushes what its `Doc` logged. Its unacknowledged
    /// edits stay in the store and are sent when it is opened again.
    public func close(_ id: DocumentID) {
        guard let document = documents.removeValue(forKey: id) else { return }
        document.tickTimer?.cancel()
        // Tell the server, so it stops sending this document on the shared connection.
        if let leave = try? AccordMessage.leave(documentID: id.rawValue).frame() { send(leave, for: id) }
        do throws(AccordError) {
            try document.stored.close()
        } catch {
            eventSink.yield(.failure(id, error))
        }
    }

    /// The ids of the open documents.
    public var openDocuments: [DocumentID] { documents.keys.sorted() }

    /// Runs `body` with an open document's `Doc`, on the client. Edits made in it are
    /// logged to the store as local and sent once durable.
    /// - Throws: `DOCUMENT_NOT_OPEN`, or what `body` throws.
    public func withDocument<T: Sendable>(_ id: DocumentID, _ body: @Sendable (Doc) throws -> T) throws -> T {
        guard let document = documents[id] else {
            throw AccordError(.documentNotOpen, "document \(id) is not open in this client", details: ["document": id.rawValue])
        }
        let result = try body(document.stored.doc)
        // Without a flush timer nothing would make the edit durable, so nothing would send it.
        if store.options.flushDelay == nil { try store.flush() }
        return result
    }

    /// Whether the document's last round finished and everything sent is acknowledged.
    public func isSynced(_ id: DocumentID) -> Bool { documents[id]?.machine.isSynced ?? false }

    // MARK: Time

    /// Milliseconds since the client was made, the time base of every machine.
    var now: UInt64 {
        let elapsed = clock.now - epoch
        return UInt64(elapsed.components.seconds) * 1_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000_000_000)
    }

    /// A task that calls `body` on the client at `deadline` (ms), unless cancelled first.
    func timer(at deadline: UInt64, _ body: @escaping @Sendable (isolated AccordClient) -> Void) -> Task<Void, Never> {
        let delay = deadline > now ? deadline - now : 0
        return Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(delay))
            guard !Task.isCancelled, let self else { return }
            await self.run(body)
        }
    }

    private func run(_ body: @Sendable (isolated AccordClient) -> Void) {
        body(self)
    }
}

/// A document open in the client: its stored `Doc` and its sync machine. Confined to
/// the client's executor.
final class OpenDocument {
    let stored: StoredDocument
    var machine: DocumentSyncMachine
    /// The highest local store sequence handed to the machine.
    var delivered: UInt64 = 0
    var tickTimer: Task<Void, Never>?

    init(stored: StoredDocument, machine: DocumentSyncMachine) {
        self.stored = stored
        self.machine = machine
    }

    var id: DocumentID { stored.id }
}

/// One WebSocket to `/v1/sync`, from open to close.
struct Connection {
    let socket: WebSocketClient
    let generation: UInt64
    /// Set once the server's hello arrived: the connection is ready for documents.
    var hello: ServerHello?
    var heartbeat: HeartbeatMonitor
    var reader: Task<Void, Never>
}
