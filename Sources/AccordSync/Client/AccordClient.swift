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
/// Presence (``setPresence(_:_:)``) and broadcasts (``broadcast(_:topic:payload:)``)
/// are in `AccordClient+Presence.swift`.
///
/// Apps usually reach it through the `Accord` module's `client.documents` API and
/// `AccordDocument` handles; `docs/sync.md` describes both.
public actor AccordClient {
    public nonisolated let store: DocumentStore

    /// This device's persistent key, kept in the store (``DocumentStore/actorID()``):
    /// stable across restarts, new for a new or wiped store.
    public nonisolated var actorID: String {
        get throws(AccordError) { try store.actorID() }
    }
    /// `ws://host:port` (or with a path prefix); `/v1/sync?token=…` is appended.
    public nonisolated let serverURL: String
    /// How `wss://` and `https://` servers are checked.
    nonisolated let tls: ClientTLS

    let tokenProvider: @Sendable (TokenRequestReason) async throws -> String
    let handshakeBudget: UInt64
    let resyncInterval: UInt64?
    /// How many steps each open document's undo and redo stacks hold.
    let maxUndoDepth: Int
    /// Every subscriber of ``events`` and ``stream(for:)``.
    nonisolated let bus = EventBus()
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
    /// The server refused the last token: the next attempt asks the provider with this.
    var authRefusal: AccordError?
    /// Token refusals in a row, reset when a connection is accepted.
    var authAttempts = 0
    /// Names each `open` waiting for the server's state, so its timeout finds it.
    var nextLoadKey: UInt64 = 0
    /// The streams of ``presenceEvents(_:filter:)`` and ``broadcasts(_:topic:)``.
    var presenceSubscribers = SubscriberList<PresenceEvent, PresenceFilter>()
    var broadcastSubscribers = SubscriberList<BroadcastMessage, String?>()
    /// Attached channels and calls waiting on the server (`AccordClient+Channels.swift`).
    var channelBook = ChannelBook()
    /// Layers that follow the open documents (``addDocumentObserver(_:)``).
    var documentObservers: [any DocumentObserver] = []
    /// The REST API's transport, made on first use (`AccordClient+REST.swift`).
    var httpClient: HTTPClient?
    /// Blobs: the blob store, upload queue and download cache (`Blobs/`), made on first use.
    var blobState: ClientBlobs?
    /// Documents created here not yet confirmed by the server (`AccordClient+Directory.swift`).
    var directoryState = DirectoryState()

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// - Parameters:
    ///   - serverURL: the server's address, `ws://host:port`, or `wss://host` for TLS.
    ///   - store: where documents and unacknowledged edits live.
    ///   - reconnect: the backoff after a lost connection or a failed attempt.
    ///   - handshakeBudget: how long (ms) a document's sync may go unanswered before a
    ///     `syncError(NETWORK_TIMEOUT)` and a retry.
    ///   - resyncInterval: how often (ms) each open document asks the server for what it
    ///     may have missed (``DocumentSyncMachine/defaultResyncInterval``); nil never.
    ///   - maxUndoDepth: how many steps ``undo(_:)`` and ``redo(_:)`` can go back per open
    ///     document (the oldest is dropped past it); below 1 means the default, 50.
    ///   - trustedCertificatesFile: for a `wss://` server: a PEM file of the certificate
    ///     authorities to trust instead of the system's (a private CA); nil, the system's.
    ///   - tokenProvider: asked for a bearer token before each connection attempt, with
    ///     the reason: `.unauthenticated` after the server refused the last one.
    public init(
        serverURL: String, store: DocumentStore, reconnect: ReconnectPolicy = ReconnectPolicy(),
        handshakeBudget: UInt64 = DocumentSyncMachine.defaultHandshakeBudget,
        resyncInterval: UInt64? = DocumentSyncMachine.defaultResyncInterval,
        maxUndoDepth: Int = UndoManager.Options.defaultMaxDepth,
        trustedCertificatesFile: String? = nil,
        tokenProvider: @escaping @Sendable (TokenRequestReason) async throws -> String
    ) {
        self.tls = ClientTLS(trustedCertificatesFile: trustedCertificatesFile)
        self.handshakeBudget = handshakeBudget
        self.maxUndoDepth = maxUndoDepth
        self.resyncInterval = resyncInterval
        var url = serverURL
        while url.hasSuffix("/") { url.removeLast() }
        self.serverURL = url
        self.store = store
        self.tokenProvider = tokenProvider
        self.network = NetworkModeMachine(reconnect: reconnect)
        epoch = clock.now
    }

    /// A client whose token provider needs no reason (a fixed token, or one fetched the
    /// same way every time).
    public init(
        serverURL: String, store: DocumentStore, reconnect: ReconnectPolicy = ReconnectPolicy(),
        handshakeBudget: UInt64 = DocumentSyncMachine.defaultHandshakeBudget,
        resyncInterval: UInt64? = DocumentSyncMachine.defaultResyncInterval,
        maxUndoDepth: Int = UndoManager.Options.defaultMaxDepth,
        trustedCertificatesFile: String? = nil,
        tokenProvider: @escaping @Sendable () async throws -> String
    ) {
        self.init(
            serverURL: serverURL, store: store, reconnect: reconnect, handshakeBudget: handshakeBudget,
            resyncInterval: resyncInterval, maxUndoDepth: maxUndoDepth, trustedCertificatesFile: trustedCertificatesFile,
            tokenProvider: { (_: TokenRequestReason) in try await tokenProvider() })
    }

    // MARK: Lifecycle

    /// Starts listening to the store and connects (unless pinned offline). Idempotent.
    public func start() {
        guard !isStarted, !isStopped else { return }
        isStarted = true
        activateBlobs()
        let (changes, sink) = AsyncStream.makeStream(of: DocumentChange.self)
        storeSubscription = store.observeChanges { change in
            if case .appended = change.kind { sink.yield(change) }
        }
        storeTask = Task { [weak self] in
            for await change in changes {
                guard let self else { return }
                await self.storeAppended(change)
            }
        }
        perform(network.start())
    }

    /// Closes the connection, closes every open document (flushing what it logged)
    /// and ends every event stream. Unacknowledged edits stay in the store for the next client.
    public func stop() {
        guard !isStopped else { return }
        isStopped = true
        dropConnection(closeSocket: true)
        reconnectTimer?.cancel()
        blobState?.retryTimer?.cancel()
        blobState?.finishedFlush?.cancel()
        removeFinishedUploads()
        storeSubscription?.cancel()
        storeTask?.cancel()
        for id in Array(documents.keys) { close(id) }
        finishSubscriptions()
        finishChannels()
        bus.finish()
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
        presenceSubscribers.finishAll()
        broadcastSubscribers.finishAll()
        // Channels outlive a released client: let them go, so their streams end.
        for attached in channelBook.attached.values { attached.channel.detached() }
        bus.finish()
    }

    // MARK: Network mode

    /// Whether a connection is established (the server's hello arrived).
    public var isOnline: Bool { network.isOnline }
    public var networkMode: NetworkMode { network.mode }

    /// Pins the client offline: the connection is closed and not rebuilt; edits stay in the store.
    public func goOffline() {
        perform(network.goOffline())
        failEveryLoad { Self.offlineError($0) }
    }
    /// Pins the client online: connects now if not connected.
    public func goOnline() { perform(network.goOnline()) }
    /// Back to `auto` (the default): connected, reconnecting with backoff when lost.
    public func useAutomaticMode() { perform(network.useAutomaticMode()) }

    // MARK: Documents

    /// The ids of the open documents.
    public var openDocuments: [DocumentID] { documents.keys.sorted() }

    /// Runs `body` with an open document's `Doc`, on the client. Edits made in it are
    /// logged to the store as local and sent once durable.
    /// - Throws: `DOCUMENT_NOT_OPEN`, or what `body` throws.
    public func withDocument<T: Sendable>(_ id: DocumentID, _ body: @Sendable (Doc) throws -> T) throws -> T {
        let document = try openDocument(id)
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
    /// `open` calls waiting for the server's state (`waitForLoad: .network`).
    var loadWaiters: [LoadWaiter] = []
    /// Our presence and the others' (`AccordClient+Presence.swift`), under the `Doc`'s client id.
    var presence: DocumentPresence
    var presenceTimer: Task<Void, Never>?
    /// The app's undo history of this `Doc` (AccordClient+Undo.swift), from its opening.
    let undoManager: UndoManager

    init(stored: StoredDocument, machine: DocumentSyncMachine, maxUndoDepth: Int) {
        self.stored = stored
        self.machine = machine
        presence = DocumentPresence(localClientID: stored.doc.clientID)
        undoManager = UndoManager(document: stored.doc, options: .init(maxDepth: maxUndoDepth))
        stored.doc.undoManager = undoManager
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
