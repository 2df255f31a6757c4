/// An HTTP + WebSocket server on one port, over libwebsockets, with its own service
/// thread. HTTP requests go to `routes`; upgrade requests on any path go to
/// `shouldUpgrade`, then their events to `onEvent`.
///
/// Handlers run on the service thread: they must return quickly and never wait for
/// async work (hand the work to a task or actor instead). `WebSocketConnection.send`
/// and `close` may be called from anywhere, including the handlers.
public final class WebSocketServer: Sendable {
    public struct Configuration: Sendable {
        /// An IPv4 or IPv6 address, or an interface name; "" or "0.0.0.0" for every
        /// interface. An IPv4 address binds that address only.
        public var host: String
        /// 0 lets the kernel pick a free port; read it back from `WebSocketServer.port`.
        public var port: Int
        public var routes: HTTPRoutes
        /// Headers lws does not know by name, to capture into requests (known headers
        /// such as `authorization` are always captured).
        public var customHeaders: [String]
        /// Larger request bodies are refused with 413 `BODY_TOO_LARGE` (read from the
        /// Content-Length, before any of the body is buffered).
        public var maxHTTPBodySize: Int
        /// Request line plus headers; larger heads are refused with 431 `HEADERS_TOO_LARGE`.
        public var maxHeaderBytes: Int
        /// A request head must be complete this long after the connection opened or the
        /// previous response went out (so it is also the keep-alive idle time); a body
        /// must be complete `bodyTimeoutSeconds` after its head. Late ones are closed.
        public var headerTimeoutSeconds: Int
        public var bodyTimeoutSeconds: Int
        /// Connections from one remote address still in the HTTP stage (not WebSockets);
        /// the next one is answered 503 `TOO_MANY_CONNECTIONS` and closed. 0: no cap.
        public var maxConnectionsPerAddress: Int
        /// When a new connection's descriptor is within `descriptorReserve` of
        /// `descriptorLimit`, it is served only for `reservedPaths` (health checks) and
        /// every other request is answered 503 `SERVER_BUSY`, so the server refuses
        /// politely instead of failing `accept` (EMFILE).
        public var descriptorReserve: Int
        /// nil: the soft `RLIMIT_NOFILE` at start (what lws sizes its tables from).
        public var descriptorLimit: Int?
        public var reservedPaths: Set<String>
        /// Told of every refusal of the HTTP layer (malformed, too large, too many
        /// connections...), on the service thread; for metrics. Must return quickly.
        public var onRefusal: @Sendable (HTTPRefusal) -> Void
        /// Larger WebSocket messages are discarded unread (never buffered past the limit)
        /// and reported as `messageTooLarge`; the connection is then closed with 1009
        /// unless `closeOnOversizedMessage` is false.
        public var maxMessageSize: Int
        /// False keeps the connection open after an oversized message, so the
        /// application can answer with its own error and carry on.
        public var closeOnOversizedMessage: Bool
        /// The partially received messages of all connections in one group may hold at
        /// most this many bytes together (each connection holds at most one, of at most
        /// `maxMessageSize`). A message that would pass it is discarded (its bytes freed
        /// at once, the rest of it skipped unread) and reported as `messageOverBudget`;
        /// the connection stays open. nil: no group budget.
        public var maxPartialBytesPerGroup: Int?
        /// The group of a connection (for a server, its user), from the upgrade request,
        /// decided once when it opens; nil puts it in no group.
        public var partialBytesGroup: @Sendable (HTTPRequest) -> String?
        /// Decides on an upgrade request (path, query, headers). Refused upgrades get no
        /// WebSocket; the client sees the connection fail.
        /// A WebSocket silent this long (no frame, no pong) is pinged; nil never pings.
        public var pingAfterSeconds: Int?
        /// A WebSocket silent this long is closed (its `closed` event reports 1006).
        /// Must exceed `pingAfterSeconds` to give the pong time; nil never drops.
        public var hangUpAfterSeconds: Int?
        /// Bytes one connection may have queued for sending (from `send` until the
        /// kernel takes them). A send past it is dropped and the connection closed with
        /// `slowConsumerCloseCode` and reason ``WebSocketServer/slowConsumerReason``.
        /// One message larger than this may wait besides, so any message can be sent.
        public var maxQueuedBytes: Int
        /// The close code of a connection over `maxQueuedBytes` (1008, policy violation,
        /// unless the application has its own).
        public var slowConsumerCloseCode: UInt16
        public var shouldUpgrade: @Sendable (HTTPRequest) -> Bool
        /// With a certificate, the port speaks TLS only (`https://`, `wss://`): each
        /// connection's handshake must finish within `headerTimeoutSeconds` like a
        /// request head. nil: plain HTTP and WebSocket.
        public var tls: ServerTLS?
        /// Told on the service thread of every connection whose TLS failed, besides
        /// `ServerTLS.onFailure` (the server's metrics count them here). Must return quickly.
        public var onTLSFailure: @Sendable (NetError) -> Void
        public var onEvent: @Sendable (WebSocketServerEvent) -> Void

        public init(
            host: String = "127.0.0.1", port: Int = 0, routes: HTTPRoutes = HTTPRoutes(),
            customHeaders: [String] = [], maxHTTPBodySize: Int = 16 << 20, maxHeaderBytes: Int = 16 << 10,
            headerTimeoutSeconds: Int = 10, bodyTimeoutSeconds: Int = 30, maxConnectionsPerAddress: Int = 256,
            descriptorReserve: Int = 64, descriptorLimit: Int? = nil, reservedPaths: Set<String> = [],
            onRefusal: @escaping @Sendable (HTTPRefusal) -> Void = { _ in }, maxMessageSize: Int = 64 << 20,
            closeOnOversizedMessage: Bool = true, pingAfterSeconds: Int? = nil, hangUpAfterSeconds: Int? = nil,
            maxQueuedBytes: Int = WebSocketServer.defaultMaxQueuedBytes, slowConsumerCloseCode: UInt16 = 1008,
            shouldUpgrade: @escaping @Sendable (HTTPRequest) -> Bool = { _ in true },
            onEvent: @escaping @Sendable (WebSocketServerEvent) -> Void = { _ in }
        ) {
            self.host = host
            self.port = port
            self.routes = routes
            self.customHeaders = customHeaders
            self.maxHTTPBodySize = maxHTTPBodySize
            self.maxHeaderBytes = maxHeaderBytes
            self.headerTimeoutSeconds = headerTimeoutSeconds
            self.bodyTimeoutSeconds = bodyTimeoutSeconds
            self.maxConnectionsPerAddress = maxConnectionsPerAddress
            self.descriptorReserve = descriptorReserve
            self.descriptorLimit = descriptorLimit
            self.reservedPaths = reservedPaths
            self.onRefusal = onRefusal
            self.maxMessageSize = maxMessageSize
            self.closeOnOversizedMessage = closeOnOversizedMessage
            self.maxPartialBytesPerGroup = nil
            self.partialBytesGroup = { _ in nil }
            self.pingAfterSeconds = pingAfterSeconds
            self.hangUpAfterSeconds = hangUpAfterSeconds
            self.maxQueuedBytes = maxQueuedBytes
            self.slowConsumerCloseCode = slowConsumerCloseCode
            self.shouldUpgrade = shouldUpgrade
            self.tls = nil
            self.onTLSFailure = { _ in }
            self.onEvent = onEvent
        }
    }

    /// 4 MiB: above the kernel's own send buffer (Linux autotunes it up to 4 MiB), so a
    /// reader that is only slower than the room for a burst is never closed; a minute
    /// of lag on a 0.5 Mbit/s link, past which reconnecting and resyncing beats
    /// catching up. A large document's step 2 still goes out (one larger message may wait).
    public static let defaultMaxQueuedBytes = 4 << 20
    /// The close reason of a connection closed over `maxQueuedBytes`.
    public static let slowConsumerReason = "SLOW_CONSUMER"

    /// The port the server listens on.
    public let port: Int
    private let thread: ServiceThread
    private let openCount = Locked(0)
    private let ledger: OutboundLedger

    /// What the connections hold in their outbound queues now. Any thread.
    public var outbound: OutboundStatistics { ledger.statistics }

    /// Binds and starts serving. Throws `NetError.Code.listenFailed` if it cannot bind.
    public init(_ configuration: Configuration) throws(NetError) {
        let thread = try ServiceThread(listen: (configuration.host, configuration.port))
        let ledger = OutboundLedger(limit: configuration.maxQueuedBytes)
        let core = ServerCore(
            configuration: configuration, mailbox: Mailbox(thread: thread), ledger: ledger, openCount: openCount)
        self.thread = thread
        self.ledger = ledger
        self.port = thread.listenPort ?? configuration.port
        thread.start(handler: core, name: "AccordNet.server:\(port)")
    }

    deinit {
        thread.requestStop()
    }

    /// Closes every connection (their `closed` events arrive first), stops the service
    /// thread and releases the port. Waits without blocking a thread.
    ///
    /// With a `gracePeriod`, first waits up to that long for the connections to finish
    /// closing by themselves (after `close(code:reason:)` calls), so the close frames
    /// queued for them go out and peers see those codes, not 1006.
    public func stop(gracePeriod: Duration = .zero) async {
        let deadline = ContinuousClock.now + gracePeriod
        while openCount.withLock({ $0 }) > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        thread.requestStop()
        await thread.waitUntilFinished()
    }
}
