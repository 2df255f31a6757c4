import CWebSockets

/// The service-thread side of a `WebSocketServer`: the lws callback, per-connection
/// state keyed by `wsi`, and the mailbox drain. Every method runs on the service thread.
final class ServerCore: LWSCallbackHandler {
    private struct Socket {
        let connection: WebSocketConnection
        let peer: WebSocketPeer
        let wsi: OpaquePointer
        /// Its `partialBytesGroup`, whose budget its partial message counts against.
        let group: String?
    }

    /// How long a close we start waits for the client's close reply (the WebSocket
    /// closing handshake, RFC 6455 §7.1.1) before the socket is closed anyway.
    static let closeReplyTimeoutSeconds: Int32 = 2

    private let configuration: WebSocketServer.Configuration
    private let mailbox: Mailbox<ServerCommand>
    private let ledger: OutboundLedger
    /// How many WebSockets are open, readable from other threads (`WebSocketServer.stop`).
    private let openCount: Locked<Int>
    private var nextID: UInt64 = 1
    /// Accepted upgrade requests waiting for `ESTABLISHED`.
    private var upgrades: [UInt: HTTPRequest] = [:]
    private var sockets: [UInt: Socket] = [:]
    private var socketsByID: [UInt64: UInt] = [:]
    private let front: HTTPFront
    /// Bytes of partially received messages per group (only groups holding some).
    private var partialBytes: [String: Int] = [:]

    /// How long a slow consumer's close frame may wait for the socket before the
    /// connection is dropped: a peer that does not read may never take it.
    static let slowConsumerGraceSeconds: Int32 = 2

    init(
        configuration: WebSocketServer.Configuration, mailbox: Mailbox<ServerCommand>, ledger: OutboundLedger,
        openCount: Locked<Int>
    ) {
        self.openCount = openCount
        self.configuration = configuration
        self.mailbox = mailbox
        self.ledger = ledger
        self.front = HTTPFront(configuration: configuration)
    }

    func serviceStarted(_ context: OpaquePointer) {}

    func serviceStopped() {
        // lws_context_destroy closed every wsi; anything left never reached CLOSED.
        upgrades = [:]
        front.stop()
        for socket in sockets.values {
            ledger.close(socket.connection.id)
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
        // MARK: HTTP stage (every accepted socket starts here, see HTTPFront)
        case LWS_CALLBACK_RAW_ADOPT, LWS_CALLBACK_RAW_RX, LWS_CALLBACK_RAW_WRITEABLE, LWS_CALLBACK_RAW_CLOSE:
            return front.handle(wsi, reason, input, length)

        case LWS_CALLBACK_HTTP, LWS_CALLBACK_HTTP_BODY, LWS_CALLBACK_HTTP_BODY_COMPLETION:
            // Only upgrades handed over by HTTPFront reach lws' HTTP role; anything
            // else lws would answer as plain HTTP has no business here.
            return -1

        // MARK: WebSocket
        case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
            // HTTPFront parsed the request from the raw bytes and asked `shouldUpgrade`.
            guard let request = front.takeUpgrade(fd: lws_get_socket_fd(wsi)) else { return 1 }
            upgrades[key] = request
            return 0

        case LWS_CALLBACK_ESTABLISHED:
            guard let request = upgrades.removeValue(forKey: key) else { return -1 }
            let connection = WebSocketConnection(id: nextID, request: request, mailbox: mailbox, ledger: ledger)
            nextID += 1
            ledger.open(connection.id)
            let peer = WebSocketPeer(
                maxMessageSize: configuration.maxMessageSize,
                account: OutboundAccount(ledger: ledger, connection: connection.id),
                closeReplyTimeoutSeconds: Self.closeReplyTimeoutSeconds)
            sockets[key] = Socket(
                connection: connection, peer: peer, wsi: wsi,
                group: configuration.maxPartialBytesPerGroup == nil ? nil : configuration.partialBytesGroup(request))
            socketsByID[connection.id] = key
            openCount.withLock { $0 += 1 }
            configuration.onEvent(.opened(connection))
            return 0

        case LWS_CALLBACK_RECEIVE:
            guard let socket = sockets[key] else { return -1 }
            // After our close frame, what the client sent before its reply is read and
            // dropped: the application closed the connection and gets no more of it.
            if socket.peer.closeSent { return 0 }
            switch receive(socket, wsi, input, length) {
            case .partial: return 0
            case .overBudget:
                configuration.onEvent(.messageOverBudget(socket.connection))
                return 0
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
                account(socket.group, -socket.peer.partialBytes)
                openCount.withLock { $0 -= 1 }
                socketsByID[socket.connection.id] = nil
                ledger.close(socket.connection.id)
                let close = socket.peer.finalClose
                configuration.onEvent(.closed(socket.connection, code: close.code, reason: close.reason))
            }
            return 0

        case LWS_CALLBACK_WSI_DESTROY:
            upgrades[key] = nil
            return 0

        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            if let context = lws_get_context(wsi) { front.completeHandoffs(context) }
            drainMailbox()
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    /// One `RECEIVE` for `socket`, with its group's budget applied and its use updated.
    private func receive(
        _ socket: Socket, _ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> WebSocketPeer.Received {
        guard let group = socket.group, let limit = configuration.maxPartialBytesPerGroup else {
            return socket.peer.receive(wsi, input, length)
        }
        let before = socket.peer.partialBytes
        let received = socket.peer.receive(
            wsi, input, length, allowance: max(0, limit - partialBytes[group, default: 0]))
        account(group, socket.peer.partialBytes - before)
        return received
    }

    /// Adds `change` to `group`'s partial bytes, dropping groups that hold none.
    private func account(_ group: String?, _ change: Int) {
        guard let group, change != 0 else { return }
        let total = partialBytes[group, default: 0] + change
        partialBytes[group] = total > 0 ? total : nil
    }

    private func drainMailbox() {
        for command in mailbox.take() {
            switch command {
            case .send(let id, let frame, let ticket):
                guard let key = socketsByID[id], let socket = sockets[key] else { continue }
                socket.peer.enqueue(frame, ticket: ticket)
                lws_callback_on_writable(socket.wsi)
            case .close(let id, let code, let reason):
                guard let key = socketsByID[id], let socket = sockets[key] else { continue }
                socket.peer.requestClose(code: code, reason: reason)
                lws_callback_on_writable(socket.wsi)
            case .slowConsumer(let id):
                guard let key = socketsByID[id], let socket = sockets[key] else { continue }
                socket.peer.abandonQueue(
                    closeCode: configuration.slowConsumerCloseCode, reason: WebSocketServer.slowConsumerReason)
                // The close frame goes out if the peer ever reads again; if not, the
                // timeout drops the connection (and frees what lws buffered for it).
                lws_set_timeout(socket.wsi, PENDING_TIMEOUT_USER_OK, Self.slowConsumerGraceSeconds)
                lws_callback_on_writable(socket.wsi)
            }
        }
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension ServerCore: Sendable {}
