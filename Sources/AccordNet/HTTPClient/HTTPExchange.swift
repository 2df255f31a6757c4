import CWebSockets

/// One request on an ``HTTPClient``'s service thread, from `lws_client_connect_via_info`
/// to its response: appends the headers, writes the body, collects status, headers and
/// body. Its wsi carries the exchange ID as lws' opaque user data (cleared when the
/// exchange ends), so a late callback never reaches a finished exchange. Every method
/// runs on the service thread.
final class HTTPExchange {
    let id: UInt64
    private let method: HTTPMethod
    private let target: WebSocketURL
    private let headers: [(name: String, value: String)]
    private let body: [UInt8]
    private let bodyFile: HTTPFileBody?
    private let customResponseHeaders: [String]
    private var fileReader: FileBodyReader?
    /// The body's length: the file's piece, or the bytes.
    private let bodyLength: Int64
    private let sink: (any HTTPResponseSink)?
    /// Whether the sink took this response's body (it declined an error answer, say).
    private var sinkTakesBody = false
    /// One buffer for the body pieces written and the response pieces read, so a large
    /// body costs no allocation per piece.
    private var buffer: [UInt8] = []
    private var progressReported: Int64 = 0
    private let maxResponseSize: Int
    private let slot: ResponseSlot
    private let onFinish: (HTTPExchange) -> Void
    private var wsi: OpaquePointer?
    /// OpenSSL's reason when the TLS handshake refused the server's certificate.
    private var certificateRefusal: String?
    private var bodySent: Int64 = 0
    private var status: Int?
    private var responseHeaders: [String: String] = [:]
    private var responseBody: [UInt8] = []
    private(set) var isFinished = false

    /// Body bytes handed to `lws_write` per writeable callback.
    private static let writeChunk = 16 * 1024
    /// Body bytes per writeable callback from a file: larger pieces mean fewer trips
    /// through the service loop for a large upload, at a bounded memory cost.
    private static let fileChunk = 256 * 1024
    /// Room for one piece of response body: lws reads the socket straight into it
    /// (`lws_http_client_read`), so it is the most one `recv` takes. At 64 KiB a
    /// 100 MB download took 1,600 turns of the service loop (poll, recv, the sink's
    /// write, each a system call); 256 KiB, as large as the server's send slices and
    /// the file body pieces that share this buffer, takes a quarter of them.
    private static let readChunk = 256 * 1024
    /// The least room a read gets: a small body (a small blob, a JSON answer) needs no
    /// 256 KiB buffer zeroed for it.
    private static let smallestRead = 16 * 1024
    /// Room per read for this response: its declared length, within the two above.
    private var readRoom = HTTPExchange.readChunk

    init(
        id: UInt64, request: HTTPClientRequest, target: WebSocketURL, maxResponseSize: Int, slot: ResponseSlot,
        sink: (any HTTPResponseSink)? = nil, onFinish: @escaping (HTTPExchange) -> Void
    ) {
        self.id = id
        self.method = request.method
        self.target = target
        self.headers = request.headers
        self.body = request.body
        self.bodyFile = request.bodyFile
        self.customResponseHeaders = request.customResponseHeaders
        self.bodyLength = request.bodyFile?.length ?? Int64(request.body.count)
        self.sink = sink
        self.maxResponseSize = maxResponseSize
        self.slot = slot
        self.onFinish = onFinish
    }

    /// Starts connecting. lws may report a failure from inside this call.
    func connect(_ context: OpaquePointer) {
        if let bodyFile {
            do throws(NetError) {
                fileReader = try FileBodyReader(bodyFile)
            } catch {
                finish(.failure(error))
                return
            }
        }
        var info = lws_client_connect_info()
        let host = target.host
        let hostHeader = target.hostHeader
        let connected = host.withCString { address in
            target.pathAndQuery.withCString { path in
                hostHeader.withCString { hostValue in
                    method.rawValue.withCString { methodName in
                      "accord".withCString { protocolName in
                        info.context = context
                        info.address = address
                        info.port = Int32(target.port)
                        info.path = path
                        info.host = hostValue
                        info.method = methodName  // non-nil: an HTTP client, not a WebSocket
                        // A redirect is the caller's to see, not to follow silently.
                        info.ssl_connection = Int32(LCCSCF_HTTP_NO_FOLLOW_REDIRECT.rawValue)
                        if target.isSecure { info.ssl_connection |= Int32(LCCSCF_USE_SSL.rawValue) }
                        // Binds the connection to our protocol; lws hands an unbound
                        // HTTP client none of the body ("swallowed read").
                        info.local_protocol_name = protocolName
                        info.opaque_user_data = UnsafeMutableRawPointer(bitPattern: UInt(id))
                        return lws_client_connect_via_info(&info)
                      }
                    }
                }
            }
        }
        if connected == nil, !isFinished {
            finish(.failure(NetError(.connectFailed, "cannot connect to \(host):\(target.port)")))
        }
    }

    /// Ends the exchange with `error` (timeout, cancellation, client stopping) and has
    /// lws close its connection.
    func abort(_ error: NetError) {
        if let wsi {
            forget(wsi)
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, -1)  // LWS_TO_KILL_ASYNC
        }
        finish(.failure(error))
    }

    /// One lws callback for this exchange's wsi; nil for reasons it does not handle.
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
            self.wsi = wsi
            return appendHeaders(wsi, input, length)

        case LWS_CALLBACK_CLIENT_HTTP_WRITEABLE:
            return writeBody(wsi)

        case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
            self.wsi = wsi
            status = Int(lws_http_client_http_response(wsi))
            responseHeaders = Self.headers(of: wsi)
            for name in customResponseHeaders {
                if let value = Self.customHeader(name, of: wsi) { responseHeaders[name.lowercased()] = value }
            }
            if method == .head {
                // A HEAD answer has no body, whatever its Content-Length says: done.
                complete()
                forget(wsi)
                return close(wsi)
            }
            if let sink, let status { sinkTakesBody = sink.accepts(status: status, headers: responseHeaders) }
            let declared = responseHeaders["content-length"].flatMap(Int.init)
            if !sinkTakesBody, let declared, declared > maxResponseSize {
                return fail(wsi, NetError(.responseTooLarge, "the response declares \(declared) bytes, over \(maxResponseSize)"))
            }
            if let declared { readRoom = min(Self.readChunk, max(Self.smallestRead, declared)) }
            return 0

        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP:
            // lws hands the body over only from inside lws_http_client_read, which
            // strips chunked framing and calls back with RECEIVE_CLIENT_HTTP_READ.
            let pre = Int(accord_lws_pre())
            if buffer.count < pre + readRoom { buffer = [UInt8](repeating: 0, count: pre + readRoom) }
            var scratch = buffer
            buffer = []  // lws calls back into this exchange while it reads: no overlapping access
            defer { buffer = scratch }
            return scratch.withUnsafeMutableBytes { raw -> Int32 in
                var cursor: UnsafeMutablePointer<CChar>? = raw.baseAddress!.assumingMemoryBound(to: CChar.self) + pre
                var room = Int32(raw.count - pre)
                return lws_http_client_read(wsi, &cursor, &room) < 0 ? -1 : 0
            }

        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
            guard let input, length > 0 else { return 0 }
            if sinkTakesBody, let sink {
                do throws(NetError) {
                    try sink.write(UnsafeRawBufferPointer(start: input, count: length))
                } catch {
                    return fail(wsi, error)
                }
                return 0
            }
            guard responseBody.count + length <= maxResponseSize else {
                return fail(wsi, NetError(.responseTooLarge, "the response body passed \(maxResponseSize) bytes"))
            }
            responseBody.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            return 0

        case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
            complete()
            forget(wsi)
            return close(wsi)  // one request per connection: close it rather than keep it idle

        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            let message = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection error"
            forget(wsi)
            // Nothing came back: the request may not have reached the server at all.
            finish(.failure(status == nil ? CertificateRefusal.failure(message, refusal: certificateRefusal) : NetError(.requestFailed, message)))
            return 0

        case LWS_CALLBACK_CLOSED_CLIENT_HTTP, LWS_CALLBACK_WSI_DESTROY:
            forget(wsi)
            if status != nil, responseHeaders["content-length"] == nil, responseHeaders["transfer-encoding"] == nil {
                complete()  // a body delimited by the close (HTTP/1.0 style) ends here
            } else if !isFinished {
                let code: NetError.Code = status == nil && bodySent == 0 ? .connectFailed : .requestFailed
                finish(.failure(NetError(code, "the connection closed before the response was complete")))
            }
            return 0

        default:
            return nil
        }
    }

    private func appendHeaders(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        // `input` is `unsigned char **p` into the request buffer, `length` the room left.
        guard let input else { return -1 }
        let cursor = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = cursor.pointee else { return -1 }
        let end = start + length
        var all = headers.filter { !["content-length", "host"].contains($0.name.lowercased()) }
        if bodyLength > 0 || [.post, .put, .patch].contains(method) {
            all.append((name: "content-length", value: String(bodyLength)))
        }
        for header in all {
            let name = Array((header.name.lowercased() + ":").utf8) + [0]
            let value = Array(header.value.utf8)
            if lws_add_http_header_by_name(wsi, name, value, Int32(value.count), cursor, end) != 0 {
                finish(.failure(NetError(.requestFailed, "the request headers do not fit lws' buffer")))
                return -1
            }
        }
        if bodyLength > 0 {
            lws_client_http_body_pending(wsi, 1)
            lws_callback_on_writable(wsi)
        }
        return 0
    }

    private func writeBody(_ wsi: OpaquePointer) -> Int32 {
        if let fileReader { return writeFilePiece(wsi, fileReader) }
        guard bodySent < body.count else { return 0 }
        let sent = Int(bodySent)
        let count = min(Self.writeChunk, body.count - sent)
        let pre = Int(accord_lws_pre())
        var buffer = [UInt8](repeating: 0, count: pre + count)
        buffer.replaceSubrange(pre..<(pre + count), with: body[sent..<(sent + count)])
        let last = sent + count == body.count
        let written = buffer.withUnsafeMutableBufferPointer { raw in
            lws_write(wsi, raw.baseAddress! + pre, count, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        }
        // lws_write buffers what the socket did not take and reports it all written.
        guard written >= 0 else { return -1 }
        bodySent += Int64(count)
        if last {
            lws_client_http_body_pending(wsi, 0)
        } else {
            lws_callback_on_writable(wsi)
        }
        return 0
    }

    /// Sends the next piece of a file body. lws keeps what the socket did not take and
    /// calls back only once it is gone, so one piece at most waits in memory.
    private func writeFilePiece(_ wsi: OpaquePointer, _ reader: FileBodyReader) -> Int32 {
        guard reader.remaining > 0 else { return 0 }
        let pre = Int(accord_lws_pre())
        if buffer.count < pre + Self.fileChunk { buffer = [UInt8](repeating: 0, count: pre + Self.fileChunk) }
        let outcome = buffer.withUnsafeMutableBytes { raw -> Result<Int, NetError> in
            do throws(NetError) {
                let count = try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[pre...]))
                let last = reader.remaining == 0
                let written = lws_write(
                    wsi, raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + pre, count,
                    last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
                guard written >= 0 else { return .failure(NetError(.requestFailed, "the connection broke while sending")) }
                return .success(count)
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .failure(let error):
            return fail(wsi, error)
        case .success(let count):
            bodySent += Int64(count)
            if let progress = bodyFile?.progress, reader.remaining == 0 || bodySent - progressReported >= 1 << 20 {
                progressReported = bodySent
                progress(bodySent)
            }
            if reader.remaining == 0 {
                lws_client_http_body_pending(wsi, 0)
            } else {
                lws_callback_on_writable(wsi)
            }
            return 0
        }
    }

    private func complete() {
        guard let status else {
            finish(.failure(NetError(.requestFailed, "the connection ended without a response")))
            return
        }
        finish(.success(HTTPClientResponse(status: status, headers: responseHeaders, body: responseBody)))
    }

    /// Every response header lws parsed into one of its known tokens, by lower-case name.
    private static func headers(of wsi: OpaquePointer) -> [String: String] {
        var headers: [String: String] = [:]
        for index in 0..<Int(WSI_TOKEN_COUNT.rawValue) {
            let token = lws_token_indexes(rawValue: UInt32(index))
            guard let namePointer = lws_token_to_string(token) else { continue }
            let raw = String(cString: namePointer)
            // Header tokens are "name:"; the others are request lines ("get ") or h2 pseudo-headers.
            guard raw.hasSuffix(":"), !raw.hasPrefix(":") else { continue }
            let length = Int(lws_hdr_total_length(wsi, token))
            guard length > 0 else { continue }
            var value = [CChar](repeating: 0, count: length + 1)
            let copied = Int(lws_hdr_copy(wsi, &value, Int32(value.count), token))
            guard copied >= 0 else { continue }
            let text = String(decoding: value.prefix(copied).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            headers[String(raw.dropLast()).lowercased()] = text
        }
        return headers
    }

    /// A header lws keeps by name (not one of its tokens), as sent in lower case or
    /// with each word capitalized (`Accord-Upload-Offset`).
    private static func customHeader(_ name: String, of wsi: OpaquePointer) -> String? {
        let lower = name.lowercased()
        let capitalized = lower.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: "-")
        for spelling in [lower, capitalized] {
            let key = spelling + ":"
            let length = key.withCString { lws_hdr_custom_length(wsi, $0, Int32(key.utf8.count)) }
            guard length >= 0 else { continue }
            var value = [CChar](repeating: 0, count: Int(length) + 1)
            let copied = key.withCString { lws_hdr_custom_copy(wsi, &value, Int32(value.count), $0, Int32(key.utf8.count)) }
            guard copied >= 0 else { continue }
            return String(decoding: value.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }

    /// Ends the exchange from inside one of its callbacks; the -1 makes lws close the wsi.
    private func fail(_ wsi: OpaquePointer, _ error: NetError) -> Int32 {
        forget(wsi)
        finish(.failure(error))
        return -1
    }

    /// Closes a connection whose exchange is over. lws 4.1 ignores the nonzero return of
    /// COMPLETED_CLIENT_HTTP when the response had no body (`content-length: 0`, a 204):
    /// the connection then stayed open for good, one descriptor per request. A kill
    /// timeout closes it on every path, on lws' next turn of the loop.
    private func close(_ wsi: OpaquePointer) -> Int32 {
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        return -1
    }

    private func forget(_ wsi: OpaquePointer) {
        lws_set_opaque_user_data(wsi, nil)
        if self.wsi == wsi { self.wsi = nil }
    }

    private func finish(_ outcome: ResponseSlot.Outcome) {
        guard !isFinished else { return }
        isFinished = true
        slot.finish(outcome)
        onFinish(self)
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension HTTPExchange: Sendable {}
