import CWebSockets

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The HTTP stage of every server connection. The listener hands each accepted socket
/// to lws' raw-socket role (`LWS_SERVER_OPTION_ADOPT_APPLY_LISTEN_ACCEPT_CONFIG`), so
/// the bytes arrive here unparsed: `HTTPConnection` frames requests, routes answer
/// them, and a WebSocket upgrade becomes a `ServerWebSocket` on the same raw socket
/// (`onUpgrade`, with the bytes that followed the head).
///
/// Why not lws' own HTTP server: in lws 4.1 its URI parser rewrites the path with no
/// raw form kept (see `RequestTarget`), a POST with `Content-Length: 0` reaches
/// `HTTP_BODY_COMPLETION` after `HTTP`, pipelined bodies looped, CONNECT became a raw
/// tunnel with no timeout, and a head over 4 KB was a bare close. Service thread only.
final class HTTPFront {
    private final class Client {
        let address: String
        let reserveOnly: Bool
        var connection: HTTPConnection
        var output: [UInt8] = []
        var written = 0
        var phase = Phase.reading
        var bodyTimerSet = false
        var paused = false
        /// The streamed body of the response being written, and how much of it went out.
        var stream: (any HTTPBodyStream)?
        var streamSent = 0
        /// Room for one slice of a streamed body (with lws' head room), kept per connection.
        var streamBuffer: [UInt8] = []

        enum Phase {
            case reading
            /// An upload route's sink takes the next `remaining` bytes of the body.
            /// `output` may still hold a `100 Continue` being written meanwhile.
            case streamingBody(any HTTPBodySink, remaining: Int, closeAfter: Bool)
            case writing(closeAfter: Bool)
            /// A route answered ``HTTPResponse/deferred(_:)``: waiting for its
            /// responder's answer (`token`), reading but not handing out requests.
            case awaiting(token: UInt64, omitBody: Bool, closeAfter: Bool)
            /// Our side is shut down; reading until the peer closes, so our last
            /// response is not destroyed by a reset (unread input at close sends RST).
            case lingering
        }

        /// A response is being worked out or written: requests that arrive meanwhile wait.
        var isAnswering: Bool {
            switch phase {
            case .writing, .awaiting: true
            default: false
            }
        }

        init(address: String, reserveOnly: Bool, connection: HTTPConnection) {
            self.address = address
            self.reserveOnly = reserveOnly
            self.connection = connection
        }
    }

    private let configuration: WebSocketServer.Configuration
    private let transport: ServerTransport
    private var admission: ConnectionAdmission
    private var clients: [UInt: Client] = [:]
    /// Posts a deferred answer to the service thread (the server's mailbox, which wakes
    /// the loop); it comes back through ``answer(_:_:)``. Any thread.
    private let post: @Sendable (UInt64, HTTPResponse) -> Void
    /// The connection waiting for each deferred answer, by token. Tokens are never
    /// reused, so an answer for a connection that closed finds nothing.
    private var awaiting: [UInt64: UInt] = [:]
    private var nextToken: UInt64 = 1
    /// Takes over a socket whose upgrade was accepted, with the bytes received after
    /// the request head; returns the callback result. Set by the owner before serving.
    var onUpgrade: (OpaquePointer, HTTPRequest, [UInt8]) -> Int32 = { _, _, _ in -1 }

    /// Linger after our last response, waiting for the peer to close.
    private static let lingerSeconds: Int32 = 2
    /// Bytes written per `RAW_WRITEABLE`.
    private static let writeSlice = 64 * 1024
    /// Bytes of a streamed body read and written per `RAW_WRITEABLE`: larger than
    /// `writeSlice`, since each slice costs a trip through the event loop and a read.
    private static let streamSlice = 256 * 1024

    init(
        configuration: WebSocketServer.Configuration, transport: ServerTransport,
        post: @escaping @Sendable (UInt64, HTTPResponse) -> Void
    ) {
        self.configuration = configuration
        self.transport = transport
        self.post = post
        self.admission = ConnectionAdmission(
            maxPerAddress: configuration.maxConnectionsPerAddress, descriptorLimit: configuration.descriptorLimit,
            reserve: configuration.descriptorReserve)
    }

    /// Drops every connection; answers still to come find nothing.
    func stop() {
        clients = [:]
        awaiting = [:]
    }

    /// A deferred answer arrived (service thread): written if its connection still waits
    /// for it, dropped if it closed meanwhile.
    func answer(_ token: UInt64, _ response: HTTPResponse) {
        guard let key = awaiting.removeValue(forKey: token), let client = clients[key],
              case .awaiting(let current, let omitBody, let closeAfter) = client.phase, current == token,
              let wsi = OpaquePointer(bitPattern: key)
        else { return }
        respond(wsi, client, response, omitBody: omitBody, closeAfter: closeAfter)
    }

    /// One `RAW_*` callback. Returns the callback result (-1 closes the wsi).
    func handle(_ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ input: UnsafeMutableRawPointer?, _ length: Int)
        -> Int32
    {
        let key = UInt(bitPattern: wsi)
        switch reason {
        case LWS_CALLBACK_RAW_ADOPT:
            return adopted(wsi, key)
        case LWS_CALLBACK_RAW_RX:
            guard let client = clients[key] else { return -1 }
            if case .streamingBody(let sink, let remaining, let closeAfter) = client.phase {
                return receiveBody(wsi, client, sink, remaining: remaining, closeAfter: closeAfter,
                                   UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length))
            }
            guard case .lingering = client.phase else {
                if let input, length > 0 { client.connection.receive(UnsafeRawBufferPointer(start: input, count: length)) }
                if client.isAnswering {
                    // Answer one request at a time; stop reading while a big backlog waits.
                    if client.connection.bufferedCount > configuration.maxHeaderBytes, !client.paused {
                        client.paused = true
                        lws_rx_flow_control(wsi, 0)
                    }
                    return 0
                }
                return advance(wsi, client)
            }
            return 0
        case LWS_CALLBACK_RAW_WRITEABLE:
            guard let client = clients[key] else { return 0 }
            return writeNext(wsi, client)
        case LWS_CALLBACK_RAW_CLOSE:
            if let client = clients.removeValue(forKey: key) {
                admission.release(address: client.address)
                if case .streamingBody(let sink, _, _) = client.phase { sink.abort() }
                if case .awaiting(let token, _, _) = client.phase { awaiting[token] = nil }
            }
            return 0
        default:
            return 0
        }
    }

    private func adopted(_ wsi: OpaquePointer, _ key: UInt) -> Int32 {
        var name = [CChar](repeating: 0, count: 64)
        let address = lws_get_peer_simple(wsi, &name, name.count).map { String(cString: $0) } ?? "?"
        let verdict = admission.admit(address: address, fd: lws_get_socket_fd(wsi))
        let client = Client(
            address: address, reserveOnly: verdict == .reserveOnly,
            connection: HTTPConnection(
                maxHeaderBytes: configuration.maxHeaderBytes, maxBodyBytes: configuration.maxHTTPBodySize,
                isStreamed: { [routes = configuration.routes] method, path in
                    routes.uploadHandler(method, path) != nil
                }))
        clients[key] = client
        if case .refuse(let refusal) = verdict {
            configuration.onRefusal(refusal)
            respond(wsi, client, refusal.response, omitBody: false, closeAfter: true)
            return 0
        }
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_KEEPALIVE_IDLE, Int32(clamping: configuration.headerTimeoutSeconds))
        return 0
    }

    /// Hands out buffered requests until one needs answering (or more bytes).
    private func advance(_ wsi: OpaquePointer, _ client: Client) -> Int32 {
        switch client.connection.next() {
        case .needMore:
            if client.connection.isReadingBody, !client.bodyTimerSet {
                client.bodyTimerSet = true
                lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(clamping: configuration.bodyTimeoutSeconds))
            }
            return 0
        case .refuse(let refusal):
            refuse(wsi, client, refusal)
            return 0
        case .request(let request, let closeAfter):
            if client.reserveOnly, !configuration.reservedPaths.contains(request.path) {
                refuse(wsi, client, .serverBusy)
                return 0
            }
            let response = configuration.routes.respond(to: request)
            respond(wsi, client, response, omitBody: request.method == .head, closeAfter: closeAfter || client.reserveOnly)
            return 0
        case .streamedRequest(let request, let bodyLength, let closeAfter):
            return startUpload(wsi, client, request, bodyLength: bodyLength, closeAfter: closeAfter || client.reserveOnly)
        case .upgrade(let request, let bytes):
            if client.reserveOnly {
                refuse(wsi, client, .serverBusy)
                return 0
            }
            guard configuration.shouldUpgrade(request) else {
                refuse(wsi, client, .upgradeRefused)
                return 0
            }
            // The socket leaves the HTTP stage: no longer counted per address, and its
            // header timeout no longer applies (the WebSocket has its own idle rule).
            clients[UInt(bitPattern: wsi)] = nil
            admission.release(address: client.address)
            lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
            return onUpgrade(wsi, request, bytes)
        }
    }

    /// An upload route's head arrived: the route answers at once (a refusal: the body is
    /// never read, the connection closes after the answer) or takes the body as a stream,
    /// starting with the bytes that came with the head.
    private func startUpload(
        _ wsi: OpaquePointer, _ client: Client, _ request: HTTPRequest, bodyLength: Int, closeAfter: Bool
    ) -> Int32 {
        if client.reserveOnly, !configuration.reservedPaths.contains(request.path) {
            refuse(wsi, client, .serverBusy)
            return 0
        }
        guard let handler = configuration.routes.uploadHandler(request.method, request.path) else {
            refuse(wsi, client, .malformed("no upload route"))
            return 0
        }
        switch handler(request) {
        case .respond(let response):
            respond(wsi, client, response, omitBody: request.method == .head, closeAfter: closeAfter || bodyLength > 0)
            return 0
        case .stream(let sink):
            // curl and others wait (a second, for curl) for this before sending a large body.
            if bodyLength > 0, request.header("expect")?.lowercased().contains("100-continue") == true {
                client.output = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
                client.written = 0
                lws_callback_on_writable(wsi)
            }
            lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(clamping: configuration.bodyTimeoutSeconds))
            let early = client.connection.takeBuffered(max: bodyLength)
            return early.withUnsafeBytes { bytes in
                receiveBody(wsi, client, sink, remaining: bodyLength, closeAfter: closeAfter, bytes)
            }
        }
    }

    /// Hands received bytes to the sink of the upload in progress. Bytes past the body
    /// are the next request's (pipelining) and are buffered as usual. The body timeout
    /// restarts with every piece: it bounds a stalled upload, not a long one.
    private func receiveBody(
        _ wsi: OpaquePointer, _ client: Client, _ sink: any HTTPBodySink, remaining: Int, closeAfter: Bool,
        _ bytes: UnsafeRawBufferPointer
    ) -> Int32 {
        let take = min(remaining, bytes.count)
        if take > 0, let early = sink.receive(UnsafeRawBufferPointer(rebasing: bytes[..<take])) {
            respond(wsi, client, early, omitBody: false, closeAfter: true)
            return 0
        }
        if bytes.count > take { client.connection.receive(UnsafeRawBufferPointer(rebasing: bytes[take...])) }
        let left = remaining - take
        guard left == 0 else {
            client.phase = .streamingBody(sink, remaining: left, closeAfter: closeAfter)
            lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(clamping: configuration.bodyTimeoutSeconds))
            return 0
        }
        client.phase = .reading
        respond(wsi, client, sink.finish(), omitBody: false, closeAfter: closeAfter)
        return 0
    }

    private func refuse(_ wsi: OpaquePointer, _ client: Client, _ refusal: HTTPRefusal) {
        configuration.onRefusal(refusal)
        respond(wsi, client, refusal.response, omitBody: false, closeAfter: true)
    }

    private func respond(_ wsi: OpaquePointer, _ client: Client, _ response: HTTPResponse, omitBody: Bool, closeAfter: Bool) {
        if let deferral = response.deferral {
            park(deferral, wsi, client, omitBody: omitBody, closeAfter: closeAfter)
            return
        }
        // A `100 Continue` still being written goes out first.
        let unwritten = client.written < client.output.count ? Array(client.output[client.written...]) : []
        client.output = unwritten + response.wireBytes(omitBody: omitBody, close: closeAfter)
        client.written = 0
        client.stream = omitBody ? nil : response.bodyStream
        client.streamSent = 0
        client.phase = .writing(closeAfter: closeAfter)
        // A client that stops reading must not hold the connection forever.
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(clamping: configuration.bodyTimeoutSeconds))
        lws_callback_on_writable(wsi)
    }

    /// One `RAW_WRITEABLE`: the next slice of the response; once lws reports writable
    /// again after the last slice (its own buffer is then empty), the next request or
    /// the close.
    private func writeNext(_ wsi: OpaquePointer, _ client: Client) -> Int32 {
        if case .streamingBody = client.phase {
            // Only a `100 Continue` is written while a body streams in.
            if client.written < client.output.count { return writeOutput(wsi, client) }
            client.output = []
            client.written = 0
            return 0
        }
        if case .awaiting = client.phase {
            // Only a `100 Continue` is written while the answer is being worked out.
            if client.written < client.output.count { return writeOutput(wsi, client) }
            return 0
        }
        guard case .writing(let closeAfter) = client.phase else { return 0 }
        if client.written < client.output.count { return writeOutput(wsi, client) }
        if let stream = client.stream, client.streamSent < stream.length { return writeStream(wsi, client, stream) }
        client.stream = nil
        client.output = []
        if closeAfter {
            client.phase = .lingering
            transport.shutdownWrite(wsi)
            if client.paused { lws_rx_flow_control(wsi, 1) }
            lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, Self.lingerSeconds)
            return 0
        }
        client.phase = .reading
        client.bodyTimerSet = false
        if client.paused {
            client.paused = false
            lws_rx_flow_control(wsi, 1)
        }
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_KEEPALIVE_IDLE, Int32(clamping: configuration.headerTimeoutSeconds))
        return advance(wsi, client)
    }
}

extension HTTPFront {
    /// Parks the connection until the route's responder answers. No timeout runs
    /// meanwhile: the header and body timeouts bound the client, not the route's work
    /// (an export of a big document may take a while); a client that goes away closes
    /// the socket, and its answer is then dropped. `start` runs here and must return at once.
    private func park(_ deferral: HTTPDeferral, _ wsi: OpaquePointer, _ client: Client, omitBody: Bool, closeAfter: Bool) {
        let token = nextToken
        nextToken += 1
        awaiting[token] = UInt(bitPattern: wsi)
        client.phase = .awaiting(token: token, omitBody: omitBody, closeAfter: closeAfter)
        lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0)
        let post = self.post
        deferral.start(HTTPResponder { response in post(token, response) })
    }

    /// The next slice of the buffered output (head, buffered body).
    private func writeOutput(_ wsi: OpaquePointer, _ client: Client) -> Int32 {
        let count = min(Self.writeSlice, client.output.count - client.written)
        let pre = accord_lws_pre()
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: pre + count)
        defer { buffer.deallocate() }
        client.output.withUnsafeBufferPointer { source in
            (buffer + pre).initialize(from: source.baseAddress! + client.written, count: count)
        }
        guard transport.sendAll(wsi, buffer + pre, count) else { return -1 }
        client.written += count
        lws_callback_on_writable(wsi)
        return 0
    }

    /// The next slice of a streamed body, read from its stream only now that the socket
    /// takes more. A stream that fails (or ends early) closes the connection: the client
    /// then has fewer bytes than the `content-length` said, never a whole wrong body.
    private func writeStream(_ wsi: OpaquePointer, _ client: Client, _ stream: any HTTPBodyStream) -> Int32 {
        let pre = accord_lws_pre()
        let want = min(Self.streamSlice, stream.length - client.streamSent)
        if client.streamBuffer.count < pre + Self.streamSlice {
            client.streamBuffer = [UInt8](repeating: 0, count: pre + Self.streamSlice)
        }
        let written = client.streamBuffer.withUnsafeMutableBytes { buffer -> Int in
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[pre..<(pre + want)])
            guard let count = try? stream.read(into: slice), count > 0, count <= want else { return -1 }
            let start = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self) + pre
            return transport.sendAll(wsi, start, count) ? count : -1
        }
        guard written > 0 else { return -1 }
        client.streamSent += written
        // A slow reader must not hold the connection forever, a long transfer may.
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(clamping: configuration.bodyTimeoutSeconds))
        lws_callback_on_writable(wsi)
        return 0
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension HTTPFront: Sendable {}
