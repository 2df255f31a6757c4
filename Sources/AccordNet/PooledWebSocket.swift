/// Commands from any thread to a pool's service thread.
enum PoolCommand: Sendable {
    case connect(PoolConnectRequest)
    case connection(UInt64, ClientCommand)
    /// Closes every connection with this code, then ends the service loop.
    case closeAll(code: UInt16, reason: String)
}

/// What `WebSocketClientPool.connect` hands its service thread.
struct PoolConnectRequest: Sendable {
    let id: UInt64
    let target: WebSocketURL
    let headers: [(name: String, value: String)]
    let maxMessageSize: Int
    let handshake: Handshake
    let onEvent: @Sendable (WebSocketClient.Event) -> Void
}

/// One client connection of a `WebSocketClientPool`. `send`, `ping` and `close` work
/// from any thread: they post to the pool's mailbox, which its service thread drains.
/// Messages from one thread go out in the order sent. After the connection closed (or
/// the pool stopped) they do nothing.
///
/// Unlike `WebSocketClient`, releasing the handle does not close the connection: the
/// pool owns it until `close`, a close from the server, or `WebSocketClientPool.stop`.
public final class PooledWebSocket: Sendable, Hashable, CustomStringConvertible {
    /// Unique within its pool.
    public let id: UInt64
    private let mailbox: Mailbox<PoolCommand>

    init(id: UInt64, mailbox: Mailbox<PoolCommand>) {
        self.id = id
        self.mailbox = mailbox
    }

    /// Queues one binary message.
    public func send(_ message: [UInt8]) {
        mailbox.post(.connection(id, .send(.binary(message))))
    }

    /// Queues a ping (payload at most 125 bytes; longer is cut). The pong arrives as an event.
    public func ping(_ payload: [UInt8] = []) {
        mailbox.post(.connection(id, .send(.ping(Array(payload.prefix(125))))))
    }

    /// Sends a close frame with `code` after the queued messages; the connection's last
    /// event is then `closed`.
    public func close(code: UInt16 = 1000, reason: String = "") {
        mailbox.post(.connection(id, .close(code: code, reason: reason)))
    }

    public var description: String { "PooledWebSocket(\(id))" }

    public static func == (lhs: PooledWebSocket, rhs: PooledWebSocket) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
