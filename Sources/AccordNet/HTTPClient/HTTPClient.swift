/// An HTTP/1.1 client over libwebsockets, with the WebSocket client's thread model:
/// one lws context and one service thread per client, carrying any number of
/// requests at once (one connection each). Only `http://` for now.
///
/// ```swift
/// let http = try HTTPClient()
/// let response = try await http.send(
///     HTTPClientRequest(.post, "http://127.0.0.1:8787/v1/documents",
///                       headers: [("authorization", "Bearer …")], body: Array("{}".utf8)),
///     timeout: .seconds(10))
/// print(response.status, String(decoding: response.body, as: UTF8.self))
/// ```
///
/// Any status is a response (a 404 is not an error). Errors are ``NetError``s:
/// `NET_CONNECT_FAILED` when no response came because the connection could not be made
/// (refused, unknown host, nothing listening), `NET_REQUEST_FAILED` when it broke
/// after that, `NET_TIMEOUT`, `NET_CANCELLED` (the calling task was cancelled or the
/// client stopped), `NET_RESPONSE_TOO_LARGE`, `NET_INVALID_URL`.
///
/// Releasing the client stops its thread and cancels what is still in flight.
public final class HTTPClient: Sendable {
    private let thread: ServiceThread
    private let mailbox: Mailbox<HTTPClientCommand>
    private let nextID = Locked<UInt64>(1)
    /// Made with TLS settings: `https://` URLs work.
    private let speaksTLS: Bool

    /// - Parameters:
    ///   - maxResponseSize: the largest response body accepted (bytes); a larger one ends
    ///     the request with `NET_RESPONSE_TOO_LARGE`, without buffering past it.
    ///   - tls: how `https://` servers are checked (`.system`: the system's authorities);
    ///     nil, plain `http://` only, and an `https://` request is `NET_TLS_CONFIGURATION`.
    /// - Throws: `NET_TLS_CONFIGURATION` for a trusted-certificates file that cannot be read.
    public init(maxResponseSize: Int = 16 << 20, tls: ClientTLS? = nil) throws(NetError) {
        thread = try ServiceThread(listen: nil, clientTLS: tls)
        speaksTLS = tls != nil
        mailbox = Mailbox(thread: thread)
        thread.start(handler: HTTPClientCore(mailbox: mailbox, maxResponseSize: maxResponseSize), name: "AccordNet.http")
    }

    deinit {
        thread.requestStop()
    }

    /// Sends `request` and returns the whole response. Cancelling the calling task
    /// ends the request (`NET_CANCELLED`) and closes its connection; so does `timeout`
    /// passing (`NET_TIMEOUT`), counted from the call to the last byte of the response.
    ///
    /// With a `sink`, the response body is handed to it piece by piece as it arrives
    /// (if it accepts the status), never held whole; ``HTTPClientRequest/bodyFile``
    /// streams the request body from a file the same way. Memory stays bounded by one
    /// piece each way, whatever the sizes.
    public func send(
        _ request: HTTPClientRequest, timeout: Duration = .seconds(30), sink: (any HTTPResponseSink)? = nil
    ) async throws(NetError) -> HTTPClientResponse {
        let target = try WebSocketURL(request.url, scheme: "http://")
        guard !target.isSecure || speaksTLS else {
            throw NetError(.tlsConfiguration, "this HTTPClient was made without TLS settings (pass tls: .system): \(request.url)")
        }
        let id = nextID.withLock { next in
            defer { next += 1 }
            return next
        }
        let slot = ResponseSlot()
        mailbox.post(.start(id: id, request: request, target: target, slot: slot, sink: sink))
        if !thread.isRunning { slot.finish(.failure(NetError(.cancelled, "the HTTP client stopped"))) }
        let timer = Task { [mailbox] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            Self.abort(id, slot, NetError(.timedOut, "no complete response within \(timeout)"), mailbox)
        }
        defer { timer.cancel() }
        let outcome = await withTaskCancellationHandler {
            await slot.outcome()
        } onCancel: { [mailbox] in
            Self.abort(id, slot, NetError(.cancelled, "the request was cancelled"), mailbox)
        }
        return try outcome.get()
    }

    /// Ends a request now, from any thread: the caller gets `error` at once, and the
    /// service thread closes the connection when it gets to it.
    private static func abort(_ id: UInt64, _ slot: ResponseSlot, _ error: NetError, _ mailbox: Mailbox<HTTPClientCommand>) {
        if slot.finish(.failure(error)) { mailbox.post(.abort(id: id, error: error)) }
    }

    /// Stops the service thread; requests in flight end with `NET_CANCELLED`.
    public func stop() async {
        thread.requestStop()
        await thread.waitUntilFinished()
    }
}
