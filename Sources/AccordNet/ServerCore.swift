import CWebSockets

/// The service-thread side of a `WebSocketServer`: the lws callback, per-connection
/// state keyed by `wsi`, and the mailbox drain. Every method runs on the service thread.
final class ServerCore: LWSCallbackHandler {
    private struct Socket {
        let connection: WebSocketConnection
        let peer: WebSocketPeer
        let wsi: OpaquePointer
    }

    /// How long a close we start waits for the client's close reply (the WebSocket
    /// closing handshake, RFC 6455 §7.1.1) before the socket is closed anyway.
    static let closeReplyTimeoutSeconds: Int32 = 2

    private let configuration: WebSocketServer.Configuration
    private let mailbox: Mailbox<ServerCommand>
    /// How many WebSockets are open, readable from other threads (`WebSocketServer.stop`).
    private let openCount: Locked<Int>
    private var nextID: UInt64 = 1
    /// Accepted upgrade requests waiting for `ESTABLISHED`.
    private var upgrades: [UInt: HTTPRequest] = [:]
    private var sockets: [UInt: Socket] = [:]
    private var socketsByID: [UInt64: UInt] = [:]
    private var exchanges: [UInt: HTTPExchange] = [:]

    init(configuration: WebSocketServer.Configuration, mailbox: Mailbox<ServerCommand>, openCount: Locked<Int>) {
        self.openCount = openCount
        self.configuration = configuration
        self.mailbox = mailbox
    }

    func serviceStarted(_ context: OpaquePointer) {}

    func serviceStopped() {
        // lws_context_destroy closed every wsi; anything left never reached CLOSED.
        upgrades = [:]
        exchanges = [:]
        for socket in sockets.values {
            configuration.onEvent(.closed(socket.connection, code: 1006, reason: ""))
        }
        sockets = [:]
        socketsByID = [:]
    }

    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        let key = UInt(bitPattern: wsi)
        switch reason {
        // MARK: HTTP
        case LWS_CALLBACK_HTTP:
            let request = RequestReader.read(wsi, customHeaders: configuration.customHeaders)
            let exchange = HTTPExchange(request: request)
            exchanges[key] = exchange
            if Self.expectsBody(wsi) { return 0 }  // answered at HTTP_BODY_COMPLETION
            return exchange.start(wsi, configuration.routes.respond(to: request))

        case LWS_CALLBACK_HTTP_BODY:
            guard let exchange = exchanges[key] else { return -1 }
            if exchange.request.body.count + length > configuration.maxHTTPBodySize { return -1 }
            if let input, length > 0 {
                exchange.request.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
            return 0

        case LWS_CALLBACK_HTTP_BODY_COMPLETION:
            guard let exchange = exchanges[key] else { return -1 }
            return exchange.start(wsi, configuration.routes.respond(to: exchange.request))

        case LWS_CALLBACK_HTTP_WRITEABLE:
            guard let exchange = exchanges[key] else { return 0 }
            return exchange.writeNext(wsi)

        case LWS_CALLBACK_HTTP_DROP_PROTOCOL, LWS_CALLBACK_CLOSED_HTTP:
            // The exchange ends here (also between keep-alive requests): never let the
            // next request on this wsi see the previous one's state.
            exchanges[key] = nil
            return lws_callback_http_dummy(wsi, reason, user, input, length)

        // MARK: WebSocket
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            var request = RequestReader.read(wsi, customHeaders: configuration.customHeaders)
            request.method = .get
            guard configuration.shouldUpgrade(request) else { return 1 }
            upgrades[key] = request
            return 0

        case LWS_CALLBACK_ESTABLISHED:
            let request =
                upgrades.removeValue(forKey: key)
                ?? RequestReader.read(wsi, customHeaders: configuration.customHeaders)
            let connection = WebSocketConnection(id: nextID, request: request, mailbox: mailbox)
            nextID += 1
            let peer = WebSocketPeer(
                maxMessageSize: configuration.maxMessageSize, closeReplyTimeoutSeconds: Self.closeReplyTimeoutSeconds)
            sockets[key] = Socket(connection: connection, peer: peer, wsi: wsi)
            socketsByID[connection.id] = key
            openCount.withLock { $0 += 1 }
            configuration.onEvent(.opened(connection))
            return 0

        case LWS_CALLBACK_RECEIVE:
            guard let socket = sockets[key] else { return -1 }
            // After our close frame, what the client sent before its reply is read and
            // dropped: the application closed the connection and gets no more of it.
            if socket.peer.closeSent { return 0 }
            switch socket.peer.receive(wsi, input, length) {
            case .partial: return 0
            case .message(let message):
                configuration.onEvent(.message(socket.connection, message))
                return 0
            case .tooLarge:
                configuration.onEvent(.messageTooLarge(socket.connection))
                if configuration.closeOnOversizedMessage {
                    socket.peer.requestClose(code: 1009, reason: "message too large")
                    lws_callback_on_writable(wsi)
                }
                return 0
            }

        case LWS_CALLBACK_SERVER_WRITEABLE:
            guard let socket = sockets[key] else { return 0 }
            return socket.peer.writeNext(wsi)

        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            guard let peer = sockets[key]?.peer else { return 0 }
            peer.peerClosed(input, length)
            // The reply to our close: everything the client sent before it has been
            // read, so the socket can close without a RST. Nonzero closes it now (lws
            // would otherwise answer with a close of its own). A close the client
            // started (0) is answered by lws as usual.
            return peer.closeSent ? -1 : 0

        case LWS_CALLBACK_CLOSED:
            if let socket = sockets.removeValue(forKey: key) {
                openCount.withLock { $0 -= 1 }
                socketsByID[socket.connection.id] = nil
                let close = socket.peer.finalClose
                configuration.onEvent(.closed(socket.connection, code: close.code, reason: close.reason))
            }
            return 0

        case LWS_CALLBACK_WSI_DESTROY:
            upgrades[key] = nil
            exchanges[key] = nil
            return 0

        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            drainMailbox()
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    private func drainMailbox() {
        for command in mailbox.take() {
            switch command {
            case .send(let id, let frame):
                guard let key = socketsByID[id], let socket = sockets[key] else { continue }
                socket.peer.enqueue(frame)
                lws_callback_on_writable(socket.wsi)
            case .close(let id, let code, let reason):
                guard let key = socketsByID[id], let socket = sockets[key] else { continue }
                socket.peer.requestClose(code: code, reason: reason)
                lws_callback_on_writable(socket.wsi)
            }
        }
    }

    /// A request body follows when the request says so (content-length > 0 or chunked).
    private static func expectsBody(_ wsi: OpaquePointer) -> Bool {
        if let length = RequestReader.copy(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH), let count = Int(length), count > 0 {
            return true
        }
        if let encoding = RequestReader.copy(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) {
            return encoding.lowercased().contains("chunked")
        }
        return false
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension ServerCore: Sendable {}
