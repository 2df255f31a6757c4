import CWebSockets

/// Commands from any thread for one client connection.
enum ClientCommand: Sendable {
    case send(OutgoingFrame)
    case close(code: UInt16, reason: String)
}

/// One client connection on a service thread, from `lws_client_connect_via_info` to
/// its last event: appends the extra upgrade headers, reports the handshake, reassembles
/// incoming messages and writes queued frames. `ClientCore` (one connection per context,
/// behind `WebSocketClient`) and `PoolCore` (many, behind `WebSocketClientPool`) own
/// sessions and route lws callbacks to them. Every method runs on the service thread.
final class ClientSession {
    /// Unique within its owner. The connection's wsi carries it as its opaque user data
    /// (`connectionID(of:)`), so callbacks find the session without a pointer that could
    /// outlive it.
    let id: UInt64
    private let target: WebSocketURL
    private let headers: [(name: String, value: String)]
    private let handshake: Handshake
    private let onEvent: (WebSocketClient.Event) -> Void
    private let onFinish: (ClientSession) -> Void
    private let peer: WebSocketPeer
    private var wsi: OpaquePointer?
    /// OpenSSL's reason when the TLS handshake refused the server's certificate.
    private var certificateRefusal: String?
    private var established = false
    private(set) var isFinished = false

    /// - Parameters:
    ///   - onEvent: messages, pongs and (once established) the final `closed`.
    ///   - onFinish: called once when the session ends, after its last event, so the
    ///     owner can drop it.
    init(
        id: UInt64, target: WebSocketURL, headers: [(name: String, value: String)], maxMessageSize: Int,
        handshake: Handshake, onEvent: @escaping (WebSocketClient.Event) -> Void,
        onFinish: @escaping (ClientSession) -> Void
    ) {
        self.id = id
        self.target = target
        self.headers = headers
        self.handshake = handshake
        self.onEvent = onEvent
        self.onFinish = onFinish
        self.peer = WebSocketPeer(maxMessageSize: maxMessageSize)
    }

    /// The session ID a client wsi was created with, or nil for any other wsi (the
    /// cancel pipe, a server connection).
    static func connectionID(of wsi: OpaquePointer) -> UInt64? {
        lws_get_opaque_user_data(wsi).map { UInt64(UInt(bitPattern: $0)) }
    }

    /// Starts connecting. lws may report a failure from inside this call (the session
    /// then finishes before it returns).
    func connect(_ context: OpaquePointer) {
        var info = lws_client_connect_info()
        let host = target.host
        let hostHeader = target.hostHeader
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
                    if target.isSecure { info.ssl_connection = Int32(LCCSCF_USE_SSL.rawValue) }
                    info.opaque_user_data = UnsafeMutableRawPointer(bitPattern: UInt(id))
                    return lws_client_connect_via_info(&info)
                }
            }
        }
        if connected == nil, !isFinished {
            fail("cannot connect to \(host):\(target.port)")
        }
    }

    /// Queues a frame or the close. Before the upgrade completes they wait in the peer
    /// and go out once it is established.
    func apply(_ command: ClientCommand) {
        guard !isFinished else { return }
        switch command {
        case .send(let frame): peer.enqueue(frame)
        case .close(let code, let reason): peer.requestClose(code: code, reason: reason)
        }
        if established, let wsi, peer.hasPendingWrites { lws_callback_on_writable(wsi) }
    }

    /// The service loop ended (context destroyed) before lws reported this connection's
    /// end: an attempt still in progress fails, an open connection reports its close.
    func abandon(_ reason: String) {
        handshake.finish(.failure(NetError(.connectFailed, reason)))
        finish(peer.finalClose)
    }

    /// One lws callback for this session's wsi. Returns nil for reasons a client
    /// connection does not handle (the owner answers those).
    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int,
        user: UnsafeMutableRawPointer? = nil
    ) -> Int32? {
        switch reason {
        case LWS_CALLBACK_OPENSSL_PERFORM_SERVER_CERT_VERIFICATION:
            // 0 keeps OpenSSL's verdict; a refusal is remembered for the error.
            certificateRefusal = CertificateRefusal.reason(context: user, preverified: length) ?? certificateRefusal
            return 0

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
            if peer.hasPendingWrites { lws_callback_on_writable(wsi) }
            return 0

        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let message = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection error"
            forget(wsi)
            fail(message)
            return 0

        case LWS_CALLBACK_CLIENT_RECEIVE:
            switch peer.receive(wsi, input, length) {
            case .partial: break
            case .message(let message): onEvent(.message(message))
            case .tooLarge:
                peer.requestClose(code: 1009, reason: "message too large")
                lws_callback_on_writable(wsi)
            case .overBudget:
                break  // clients set no budget (the allowance is unlimited)
            }
            return 0

        case LWS_CALLBACK_CLIENT_RECEIVE_PONG:
            let payload = input.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
            onEvent(.pong(payload))
            return 0

        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return peer.writeNext(wsi)

        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            peer.peerClosed(input, length)
            return 0

        case LWS_CALLBACK_CLIENT_CLOSED:
            forget(wsi)
            finish(peer.finalClose)
            return 0

        case LWS_CALLBACK_WSI_DESTROY:
            // The wsi is going away without CLOSED or CONNECTION_ERROR (lws has such
            // paths for half-made connections): without this the caller would wait for
            // lws' timeout, or forever once the wsi is gone.
            forget(wsi)
            if !isFinished { fail("connection destroyed before it was established") }
            return 0

        default:
            return nil
        }
    }

    /// Callbacks for `wsi` after this no longer reach the session.
    private func forget(_ wsi: OpaquePointer) {
        lws_set_opaque_user_data(wsi, nil)
        if self.wsi == wsi { self.wsi = nil }
    }

    private func fail(_ message: String) {
        handshake.finish(.failure(CertificateRefusal.failure(message, refusal: certificateRefusal)))
        finish((1006, message))
    }

    /// Reports the close (only an established connection has one) and tells the owner, once.
    private func finish(_ close: (code: UInt16, reason: String)) {
        guard !isFinished else { return }
        isFinished = true
        if established { onEvent(.closed(code: close.code, reason: close.reason)) }
        onFinish(self)
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension ClientSession: Sendable {}
