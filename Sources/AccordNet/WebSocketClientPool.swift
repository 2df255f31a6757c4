/// Many WebSocket client connections on one libwebsockets context and one service
/// thread, for load generators that hold thousands of connections (a thread per
/// `WebSocketClient` cannot). The connections share `WebSocketClient`'s per-connection
/// code (`ClientSession`): same handshake, headers, message reassembly and write queue.
///
/// ```swift
/// let pool = try WebSocketClientPool()
/// let socket = try await pool.connect(to: "ws://127.0.0.1:8080/room") { event in
///     if case .message(let bytes) = event { print(bytes.count) }
/// }
/// socket.send([1, 2, 3])
/// await pool.stop()
/// ```
///
/// Event handlers run on the pool's service thread, in order per connection. They must
/// return quickly: every connection of the pool waits while one runs.
///
/// Capacity: lws sizes the context's fd tables from the soft `RLIMIT_NOFILE` when the
/// pool is created (`fd_limit_per_thread` 0 and one service thread, so the one thread
/// gets the whole limit and fds are looked up by number in a table of that size). Each
/// connection takes one fd, and fds the process opened elsewhere count against the same
/// numbers; raise the soft limit before creating the pool to hold more connections.
/// Connects beyond it fail with `connectFailed`.
public final class WebSocketClientPool: Sendable {
    private let thread: ServiceThread
    private let mailbox: Mailbox<PoolCommand>
    private let gate = ConnectGate()
    /// Made with TLS settings: `wss://` URLs work.
    private let speaksTLS: Bool

    /// Creates the context and starts the service thread (named `name`).
    /// - Throws: `NetError.Code.listenFailed` when lws cannot create the context.
    /// `tls`: how `wss://` servers are checked (`.system`: the system's authorities);
    /// nil, plain `ws://` only.
    public init(name: String = "AccordNet.pool", tls: ClientTLS? = nil) throws(NetError) {
        let thread = try ServiceThread(listen: nil, clientTLS: tls)
        speaksTLS = tls != nil
        let mailbox = Mailbox<PoolCommand>(thread: thread)
        self.thread = thread
        self.mailbox = mailbox
        thread.start(handler: PoolCore(mailbox: mailbox, gate: gate, thread: thread), name: name)
    }

    deinit {
        gate.close("pool released")
        thread.requestStop()
    }

    /// Connects to `url` (`ws://host:port/path?query`) sending `headers` with the upgrade
    /// request, and returns once the server accepted the WebSocket. Events of the
    /// connection go to `onEvent` on the pool's service thread: messages, pongs, then one
    /// `closed` (the server's close code, ours if we closed first, 1006 if the connection
    /// dropped). A failed connect delivers no events.
    ///
    /// - Throws: `invalidURL`; `connectFailed` when the connection or upgrade fails,
    ///   lws' connect timeout (10 s) passes, or the pool stops first.
    public func connect(
        to url: String, headers: [(name: String, value: String)] = [], maxMessageSize: Int = 64 << 20,
        onEvent: @escaping @Sendable (WebSocketClient.Event) -> Void
    ) async throws(NetError) -> PooledWebSocket {
        let target = try WebSocketURL(url)
        guard !target.isSecure || speaksTLS else {
            throw NetError(.tlsConfiguration, "this pool was made without TLS settings (pass tls: .system): \(url)")
        }
        guard let (id, handshake) = gate.admit() else { throw NetError(.connectFailed, "pool stopped") }
        mailbox.post(
            .connect(
                PoolConnectRequest(
                    id: id, target: target, headers: headers, maxMessageSize: maxMessageSize, handshake: handshake,
                    onEvent: onEvent)))
        let result = await handshake.result()
        gate.settled(id)
        try result.get()
        return PooledWebSocket(id: id, mailbox: mailbox)
    }

    /// Closes every connection with 1001 (going away), waits up to `gracePeriod` for the
    /// servers to answer, then ends the service thread (connections still open are cut,
    /// and report 1006). Connects in flight fail; later ones throw `connectFailed`.
    /// Waits without blocking a thread.
    public func stop(gracePeriod: Duration = .seconds(2)) async {
        gate.close("pool stopped")
        mailbox.post(.closeAll(code: 1001, reason: "pool stopping"))
        let thread = self.thread
        let deadline = Task {
            try? await Task.sleep(for: gracePeriod)
            thread.requestStop()
        }
        await thread.waitUntilFinished()
        deadline.cancel()
    }
}
