import CWebSockets

/// The service-thread side of a `WebSocketServer`: the lws callback, per-connection
/// state keyed by `wsi`, and the mailbox drain. Every accepted socket stays in lws'
/// raw-socket role for its whole life: `HTTPFront` serves its HTTP stage, and an
/// accepted upgrade becomes a `ServerWebSocket` framed by AccordNet. Every method runs
/// on the service thread.
final class ServerCore: LWSCallbackHandler {
    /// How long a close we start waits for the client's close reply (the WebSocket
    /// closing handshake, RFC 6455 §7.1.1) before the socket is closed anyway.
    static let closeReplyTimeoutSeconds: Int32 = 2

    private let configuration: WebSocketServer.Configuration
    private let mailbox: Mailbox<ServerCommand>
    private let ledger: OutboundLedger
    /// How many WebSockets are open, readable from other threads (`WebSocketServer.stop`).
    private let openCount: Locked<Int>
    private var nextID: UInt64 = 1
    private var sockets: [UInt: ServerWebSocket] = [:]
    private var socketsByID: [UInt64: UInt] = [:]
    private let front: HTTPFront
    /// Plain bytes, or TLS: every raw callback passes through it first.
    private let transport: ServerTransport
    private let idlePolicy: IdlePolicy
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
        self.transport = ServerTransport(tls: configuration.tls, onFailure: configuration.onTLSFailure)
        self.front = HTTPFront(
            configuration: configuration, transport: transport,
            post: { [mailbox] token, response in mailbox.post(.httpResponse(token: token, response)) })
        self.idlePolicy = IdlePolicy(
            pingAfter: configuration.pingAfterSeconds.map { .seconds($0) },
            hangUpAfter: configuration.hangUpAfterSeconds.map { .seconds($0) })
        front.onUpgrade = { [unowned self] wsi, request, bytes in self.open(wsi, request, bytes) }
    }

    func serviceStarted(_ context: OpaquePointer) {}

    func serviceStopped() {
        // lws_context_destroy closed every wsi; anything left never reached RAW_CLOSE.
        front.stop()
        transport.stop()
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
        case LWS_CALLBACK_RAW_RX:
            // Plaintext, one record at a time over TLS: an upgrade in one record moves
            // the rest of the input to the WebSocket.
            return transport.received(wsi, input, length) { plaintext, count in
                guard let socket = sockets[key] else { return front.handle(wsi, reason, plaintext, count) }
                return receive(socket, plaintext, count)
            }
        case LWS_CALLBACK_RAW_WRITEABLE:
            return transport.writeable(wsi) {
                guard let socket = sockets[key] else { return front.handle(wsi, reason, input, length) }
                return socket.writeNext()
            }
        case LWS_CALLBACK_RAW_CLOSE:
            defer { transport.closed(wsi) }
            guard let socket = sockets[key] else { return front.handle(wsi, reason, input, length) }
            closed(socket, key)
            return 0

        case LWS_CALLBACK_RAW_ADOPT:
            guard transport.adopt(wsi) else { return -1 }
            return front.handle(wsi, reason, input, length)

        case LWS_CALLBACK_TIMER:
            guard let socket = sockets[key] else { return 0 }
            idleCheck(socket)
            return 0

        case LWS_CALLBACK_HTTP, LWS_CALLBACK_HTTP_BODY, LWS_CALLBACK_HTTP_BODY_COMPLETION:
            // No socket is ever handed to lws' HTTP role; a request reaching it has no
            // business here.
            return -1

        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            drainMailbox()
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    /// An accepted upgrade (`HTTPFront.onUpgrade`): the connection opens on the same
    /// raw socket, the 101 goes out first, then `bytes` (frames the client sent
    /// without waiting for the 101) are read as the first input.
    private func open(_ wsi: OpaquePointer, _ request: HTTPRequest, _ bytes: [UInt8]) -> Int32 {
        let connection = WebSocketConnection(id: nextID, request: request, mailbox: mailbox, ledger: ledger)
        nextID += 1
        ledger.open(connection.id)
        let peer = WebSocketPeer(
            maxMessageSize: configuration.maxMessageSize,
            account: OutboundAccount(ledger: ledger, connection: connection.id),
            closeReplyTimeoutSeconds: Self.closeReplyTimeoutSeconds, writer: SocketWriter(transport: transport))
        let socket = ServerWebSocket(
            connection: connection, peer: peer, wsi: wsi,
            group: configuration.maxPartialBytesPerGroup == nil ? nil : configuration.partialBytesGroup(request),
            handshake: UpgradeResponse.head(forKey: request.header("sec-websocket-key") ?? ""))
        let key = UInt(bitPattern: wsi)
        sockets[key] = socket
        socketsByID[connection.id] = key
        openCount.withLock { $0 += 1 }
        if let watch = IdleWatch(policy: idlePolicy, now: .now) {
            socket.idle = watch
            Self.setTimer(wsi, after: watch.firstWait)
        }
        socket.wantWrite()
        configuration.onEvent(.opened(connection))
        guard !bytes.isEmpty else { return 0 }
        var first = bytes
        return first.withUnsafeMutableBytes { receive(socket, $0.baseAddress, $0.count) }
    }

    /// `RAW_CLOSE` of a WebSocket: it is gone (lws closes the descriptor).
    private func closed(_ socket: ServerWebSocket, _ key: UInt) {
        sockets[key] = nil
        account(socket.group, -socket.peer.partialBytes)
        openCount.withLock { $0 -= 1 }
        socketsByID[socket.connection.id] = nil
        ledger.close(socket.connection.id)
        let close = socket.peer.finalClose
        configuration.onEvent(.closed(socket.connection, code: close.code, reason: close.reason))
    }

    /// One `RAW_RX`: frames parsed, unmasked in lws' buffer, and acted on in order.
    private func receive(_ socket: ServerWebSocket, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        socket.idle?.heard(at: .now)
        guard let input, length > 0 else { return 0 }
        var result: Int32 = 0
        socket.parser.parse(UnsafeMutableRawBufferPointer(start: input, count: length)) { event in
            if result == 0 { result = handle(event, on: socket) }
        }
        return result
    }

    private func handle(_ event: WebSocketFrameParser.Event, on socket: ServerWebSocket) -> Int32 {
        switch event {
        case .data(let piece, let first, let last):
            // After a close started, what the client still sends is read and dropped:
            // the application closed the connection and gets no more of it.
            guard !socket.isClosing else { return 0 }
            switch receive(socket, piece, first: first, last: last) {
            case .partial: break
            case .overBudget: configuration.onEvent(.messageOverBudget(socket.connection))
            case .message(let message): configuration.onEvent(.message(socket.connection, message))
            case .tooLarge:
                configuration.onEvent(.messageTooLarge(socket.connection))
                if configuration.closeOnOversizedMessage {
                    socket.peer.requestClose(code: 1009, reason: "message too large")
                    socket.wantWrite()
                }
            }
            return 0
        case .ping(let payload):
            socket.answerPing(payload)
            return 0
        case .pong:
            return 0  // heard, which is all the idle rule needs
        case .close(let code, let reason):
            socket.peer.peerClosed(code: code, reason: reason)
            // The reply to our close: everything the client sent before it has been
            // read, so the socket can close now without a reset.
            if socket.peer.closeSent { return -1 }
            socket.answerClose()
            return 0
        case .protocolError(let code, let reason):
            if socket.peer.closeSent { return -1 }
            socket.fail(code: code, reason: reason)
            lws_set_timeout(socket.wsi, PENDING_TIMEOUT_CLOSE_SEND, Self.closeReplyTimeoutSeconds)
            return 0
        }
    }

    /// One piece of a message for `socket`, with its group's budget applied and its use updated.
    private func receive(
        _ socket: ServerWebSocket, _ piece: UnsafeRawBufferPointer, first: Bool, last: Bool
    ) -> WebSocketPeer.Received {
        guard let group = socket.group, let limit = configuration.maxPartialBytesPerGroup else {
            return socket.peer.receive(piece, first: first, last: last)
        }
        let before = socket.peer.partialBytes
        let received = socket.peer.receive(
            piece, first: first, last: last, allowance: max(0, limit - partialBytes[group, default: 0]))
        account(group, socket.peer.partialBytes - before)
        return received
    }

    /// `LWS_CALLBACK_TIMER`: the idle rule's turn.
    private func idleCheck(_ socket: ServerWebSocket) {
        guard var watch = socket.idle else { return }
        let decision = watch.check(at: .now)
        socket.idle = watch
        switch decision {
        case .hangUp:
            // Closed without a close frame, so `closed` reports 1006.
            lws_set_timeout(socket.wsi, PENDING_TIMEOUT_USER_OK, Self.killAsync)
        case .ping(let wait):
            socket.sendIdlePing()
            Self.setTimer(socket.wsi, after: wait)
        case .wait(let wait):
            Self.setTimer(socket.wsi, after: wait)
        }
    }

    /// `LWS_TO_KILL_ASYNC`: lws closes the wsi on its next pass (a macro Swift does not import).
    private static let killAsync: Int32 = -1

    private static func setTimer(_ wsi: OpaquePointer, after wait: Duration) {
        let (seconds, attoseconds) = wait.components
        lws_set_timer_usecs(wsi, lws_usec_t(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
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
            case .httpResponse(let token, let response):
                front.answer(token, response)
            }
        }
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension ServerCore: Sendable {}
