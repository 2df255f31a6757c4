import CWebSockets

/// The service-thread side of a `WebSocketClient`: connects, appends the extra
/// headers, moves frames between the mailbox, lws and the event stream. Every method
/// runs on the service thread.
final class ClientCore: LWSCallbackHandler {
    private let target: WebSocketURL
    private let headers: [(name: String, value: String)]
    private let mailbox: Mailbox<ClientCommand>
    private let events: AsyncStream<WebSocketClient.Event>.Continuation
    private let handshake: Handshake
    private let peer: WebSocketPeer
    private var wsi: OpaquePointer?
    private var established = false
    private var finished = false
    /// Strong: the thread's handler slot holds this core, and the thread drops it when
    /// it ends, so the cycle lasts only while the loop runs.
    private let thread: ServiceThread

    init(
        target: WebSocketURL, headers: [(name: String, value: String)], maxMessageSize: Int,
        thread: ServiceThread, mailbox: Mailbox<ClientCommand>, events: AsyncStream<WebSocketClient.Event>.Continuation,
        handshake: Handshake
    ) {
        self.target = target
        self.headers = headers
        self.thread = thread
        self.mailbox = mailbox
        self.events = events
        self.handshake = handshake
        self.peer = WebSocketPeer(maxMessageSize: maxMessageSize)
    }

    func serviceStarted(_ context: OpaquePointer) {
        var info = lws_client_connect_info()
        let host = target.host
        let hostHeader = target.port == 80 ? host : "\(host):\(target.port)"
        // lws copies these strings into the connection before returning.
        let connected = host.withCString { address in
            target.pathAndQuery.withCString { path in
                hostHeader.withCString { hostValue in
                    info.context = context
                    info.address = address
                    info.port = Int32(target.port)
                    info.path = path
                    info.host = hostValue
                    info.ietf_version_or_minus_one = -1
                    return lws_client_connect_via_info(&info)
                }
            }
        }
        if connected == nil, !finished {
            fail("cannot connect to \(host):\(target.port)")
        }
    }

    func serviceStopped() {
        handshake.finish(.failure(NetError(.connectFailed, "client stopped")))
        finish(peer.finalClose)
    }

    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            // `input` is `unsigned char **p` into the request buffer, `length` the room left.
            guard let input else { return -1 }
            let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
            guard let start = cursor.pointee else { return -1 }
            let end = start + length
            for header in headers {
                let name = Array((header.name.lowercased() + ":").utf8) + [0]
                let value = Array(header.value.utf8)
                if lws_add_http_header_by_name(wsi, name, value, Int32(value.count), cursor, end) != 0 { return -1 }
            }
            return 0

        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            self.wsi = wsi
            established = true
            handshake.finish(.success(()))
            drainMailbox()
            if peer.hasPendingWrites { lws_callback_on_writable(wsi) }
            return 0

        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let message = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection error"
            fail(message)
            return 0

        case LWS_CALLBACK_CLIENT_RECEIVE:
            switch peer.receive(wsi, input, length) {
            case .partial: break
            case .message(let message): events.yield(.message(message))
            case .tooLarge:
                peer.requestClose(code: 1009, reason: "message too large")
                lws_callback_on_writable(wsi)
            }
            return 0

        case LWS_CALLBACK_CLIENT_RECEIVE_PONG:
            let payload = input.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
            events.yield(.pong(payload))
            return 0

        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return peer.writeNext(wsi)

        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            peer.peerClosed(input, length)
            return 0

        case LWS_CALLBACK_CLIENT_CLOSED:
            self.wsi = nil
            finish(peer.finalClose)
            return 0

        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            drainMailbox()
            return 0

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
    }

    private func drainMailbox() {
        guard established else { return }  // commands wait in the mailbox until then
        for command in mailbox.take() {
            switch command {
            case .send(let frame): peer.enqueue(frame)
            case .close(let code, let reason): peer.requestClose(code: code, reason: reason)
            }
        }
        if let wsi, peer.hasPendingWrites { lws_callback_on_writable(wsi) }
    }

    private func fail(_ message: String) {
        handshake.finish(.failure(NetError(.connectFailed, message)))
        finish((1006, message))
    }

    /// Ends the event stream once and stops the service loop (it has nothing left to do).
    private func finish(_ close: (code: UInt16, reason: String)) {
        guard !finished else { return }
        finished = true
        if established { events.yield(.closed(code: close.code, reason: close.reason)) }
        events.finish()
        thread.requestStop()
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension ClientCore: Sendable {}
