/// Commands from any thread to a server's service thread.
enum ServerCommand: Sendable {
    /// `ticket`: the message's number in the connection's `OutboundBudget`.
    case send(connection: UInt64, OutgoingFrame, ticket: UInt64)
    case close(connection: UInt64, code: UInt16, reason: String)
    /// The connection's outbound queue passed `maxQueuedBytes`: drop what it holds and
    /// close it with the slow-consumer code.
    case slowConsumer(connection: UInt64)
    /// The answer to a deferred HTTP request (`HTTPFront`'s `token` for it).
    case httpResponse(token: UInt64, HTTPResponse)
}

/// One accepted WebSocket on a `WebSocketServer`. `send` and `close` work from any
/// thread: they post to the server's mailbox, which the service thread drains. Messages
/// from one thread go out in the order sent. After the connection closed (or the server
/// stopped) they do nothing.
///
/// What a connection has queued is bounded by the server's `maxQueuedBytes`: a send
/// that would pass it is dropped, and the connection is closed as a slow consumer
/// (`WebSocketServer.slowConsumerReason`), so a peer that stops reading cannot make the
/// server hold more than that (plus one larger message, see `OutboundBudget`).
public final class WebSocketConnection: Sendable, Hashable, CustomStringConvertible {
    /// Unique within its server.
    public let id: UInt64
    /// The upgrade request: path, query and headers.
    public let request: HTTPRequest
    private let mailbox: Mailbox<ServerCommand>
    private let ledger: OutboundLedger

    init(id: UInt64, request: HTTPRequest, mailbox: Mailbox<ServerCommand>, ledger: OutboundLedger) {
        self.id = id
        self.request = request
        self.mailbox = mailbox
        self.ledger = ledger
    }

    /// Queues one binary message. The ticket tells whether it is still queued
    /// (``isQueued(_:)``); a message refused or dropped is never queued.
    @discardableResult
    public func send(_ message: [UInt8]) -> SendTicket {
        post(.binary(message))
    }

    /// Queues a ping (payload at most 125 bytes; longer is cut). lws answers pings itself.
    public func ping(_ payload: [UInt8] = []) {
        _ = post(.ping(Array(payload.prefix(125))))
    }

    /// True while the message sent with `ticket` waits in this connection's queue (the
    /// mailbox, the write queue or lws' buffer); false once the kernel has it, or when
    /// it was dropped or the connection ended.
    public func isQueued(_ ticket: SendTicket) -> Bool {
        ticket.number > 0 && ledger.isPending(id, ticket: ticket.number)
    }

    /// Bytes queued now, and the most ever queued, on this connection.
    public var queuedBytes: (now: Int, peak: Int) { ledger.usage(of: id) }

    /// Counts the bytes against the budget before they reach the mailbox, so the
    /// mailbox itself stays bounded too; past the budget nothing more is posted but the
    /// one slow-consumer close.
    private func post(_ frame: OutgoingFrame) -> SendTicket {
        switch ledger.admit(id, bytes: frame.byteCount) {
        case .admitted(let ticket)?:
            mailbox.post(.send(connection: id, frame, ticket: ticket))
            return SendTicket(number: ticket)
        case .refused(let first)?:
            if first { mailbox.post(.slowConsumer(connection: id)) }
            return SendTicket(number: 0)
        case nil:
            return SendTicket(number: 0)  // closed: dropped, as the mailbox would
        }
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

/// Identifies one message sent on a ``WebSocketConnection`` (``WebSocketConnection/isQueued(_:)``).
public struct SendTicket: Hashable, Sendable {
    /// The message's number on its connection, from 1; 0 for a message never queued.
    let number: UInt64
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
