/// Commands from any thread to a server's service thread.
enum ServerCommand: Sendable {
    case send(connection: UInt64, OutgoingFrame)
    case close(connection: UInt64, code: UInt16, reason: String)
}

/// One accepted WebSocket on a `WebSocketServer`. `send` and `close` work from any
/// thread: they post to the server's mailbox, which the service thread drains. Messages
/// from one thread go out in the order sent. After the connection closed (or the server
/// stopped) they do nothing.
public final class WebSocketConnection: Sendable, Hashable, CustomStringConvertible {
    /// Unique within its server.
    public let id: UInt64
    /// The upgrade request: path, query and headers.
    public let request: HTTPRequest
    private let mailbox: Mailbox<ServerCommand>

    init(id: UInt64, request: HTTPRequest, mailbox: Mailbox<ServerCommand>) {
        self.id = id
        self.request = request
        self.mailbox = mailbox
    }

    /// Queues one binary message.
    public func send(_ message: [UInt8]) {
        mailbox.post(.send(connection: id, .binary(message)))
    }

    /// Queues a ping (payload at most 125 bytes; longer is cut). lws answers pings itself.
    public func ping(_ payload: [UInt8] = []) {
        mailbox.post(.send(connection: id, .ping(Array(payload.prefix(125)))))
    }

    /// Sends a close frame with `code` after the messages queued before it, then closes.
    /// Use 1000 for normal closure, 4000-4999 for application codes.
    public func close(code: UInt16 = 1000, reason: String = "") {
        mailbox.post(.close(connection: id, code: code, reason: reason))
    }

    public var description: String { "WebSocketConnection(\(id) \(request.path))" }

    public static func == (lhs: WebSocketConnection, rhs: WebSocketConnection) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// What happens on a server's WebSockets, delivered on the service thread in order.
public enum WebSocketServerEvent: Sendable {
    case opened(WebSocketConnection)
    case message(WebSocketConnection, [UInt8])
    /// A message over `maxMessageSize` arrived and was discarded.
    case messageTooLarge(WebSocketConnection)
    /// A message was discarded because the partially received messages of the
    /// connection's group would have passed `maxPartialBytesPerGroup`.
    case messageOverBudget(WebSocketConnection)
    /// The peer's close code, or ours if we closed, or 1006 if the connection dropped.
    case closed(WebSocketConnection, code: UInt16, reason: String)
}
