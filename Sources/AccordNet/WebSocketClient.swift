/// A WebSocket client over libwebsockets (Foundation's URLSessionWebSocketTask does not
/// work on Linux). Each client has its own lws context and service thread, which ends
/// when the connection closes.
///
/// Keep the client alive while you use it: releasing it tears the connection down.
public final class WebSocketClient: Sendable {
    public enum Event: Sendable, Equatable {
        case message([UInt8])
        case pong([UInt8])
        /// The server's close code, or ours if we closed first, or 1006 if the
        /// connection dropped. Always the last event.
        case closed(code: UInt16, reason: String)
    }

    /// Messages, pongs, then one `closed`; finishes after `closed`. One consumer.
    public let events: AsyncStream<Event>
    private let thread: ServiceThread
    private let mailbox: Mailbox<ClientCommand>

    private init(events: AsyncStream<Event>, thread: ServiceThread, mailbox: Mailbox<ClientCommand>) {
        self.events = events
        self.thread = thread
        self.mailbox = mailbox
    }

    /// Connects to `url` (`ws://host:port/path?query`, or `wss://` for TLS checked as
    /// `tls` says) sending `headers` with the upgrade request, and returns once the
    /// server accepted the WebSocket. Throws `invalidURL`, `tlsConfiguration`, or
    /// `connectFailed` when the connection, the TLS handshake (a certificate that is not
    /// trusted or names another host) or the upgrade fails, or lws' connect timeout
    /// (10 s) passes.
    public static func connect(
        to url: String, headers: [(name: String, value: String)] = [], maxMessageSize: Int = 64 << 20,
        tls: ClientTLS = .system
    ) async throws(NetError) -> WebSocketClient {
        let target = try WebSocketURL(url)
        let thread = try ServiceThread(listen: nil, clientTLS: target.isSecure ? tls : nil)
        let mailbox = Mailbox<ClientCommand>(thread: thread)
        let (events, continuation) = AsyncStream<Event>.makeStream()
        let handshake = Handshake()
        let core = ClientCore(
            target: target, headers: headers, maxMessageSize: maxMessageSize, thread: thread, mailbox: mailbox,
            events: continuation, handshake: handshake)
        thread.start(handler: core, name: "AccordNet.client")
        let client = WebSocketClient(events: events, thread: thread, mailbox: mailbox)
        try await handshake.result().get()
        return client
    }

    deinit {
        thread.requestStop()
    }

    /// Queues one binary message. Any thread; messages from one thread keep their order.
    public func send(_ message: [UInt8]) {
        mailbox.post(.send(.binary(message)))
    }

    /// Queues a ping (payload at most 125 bytes; longer is cut). The pong arrives as an event.
    public func ping(_ payload: [UInt8] = []) {
        mailbox.post(.send(.ping(Array(payload.prefix(125)))))
    }

    /// Sends a close frame with `code` after the queued messages. `events` then ends
    /// with `closed`.
    public func close(code: UInt16 = 1000, reason: String = "") {
        mailbox.post(.close(code: code, reason: reason))
    }

    /// Waits (without blocking a thread) until the service thread has ended.
    public func waitUntilStopped() async {
        await thread.waitUntilFinished()
    }
}
