/// Deferred answers: a route whose work takes long (a records query over a big
/// document, an export) returns ``HTTPResponse/deferred(_:)`` at once and answers later,
/// from any thread, through the ``HTTPResponder`` it is handed. The service thread never
/// waits for it: the connection just holds its place (later pipelined requests wait their
/// turn behind it) until the answer arrives, and every other connection is served meanwhile.
public struct HTTPDeferral: Sendable {
    /// Called on the service thread with the request's responder; it must hand the work
    /// to another thread and return at once.
    let start: @Sendable (HTTPResponder) -> Void
}

extension HTTPResponse {
    /// A response that is not ready yet: `start` gets a one-shot ``HTTPResponder`` (on
    /// the service thread; move the work elsewhere and return). A HEAD request answered
    /// this way still gets no body; the connection is kept alive after the answer as for
    /// any response.
    public static func deferred(_ start: @escaping @Sendable (HTTPResponder) -> Void) -> HTTPResponse {
        var response = HTTPResponse(status: 500)
        response.deferral = HTTPDeferral(start: start)
        return response
    }
}

/// Answers one deferred request, once, from any thread. A second answer is ignored, and so
/// is an answer for a connection that has closed meanwhile or a server that stopped: the
/// answer is dropped, nothing else happens.
public final class HTTPResponder: Sendable {
    private let deliver: Locked<(@Sendable (HTTPResponse) -> Void)?>

    init(deliver: @escaping @Sendable (HTTPResponse) -> Void) {
        self.deliver = Locked(deliver)
    }

    /// Sends `response` (the first call only). A response that is itself deferred is a
    /// route bug; the client then gets a 500 rather than waiting forever.
    public func respond(_ response: HTTPResponse) {
        guard let deliver = deliver.withLock({ deliver -> (@Sendable (HTTPResponse) -> Void)? in
            defer { deliver = nil }
            return deliver
        }) else { return }
        deliver(response.deferral == nil ? response : HTTPResponse(status: 500, text: "internal error\n"))
    }

    /// Whether an answer was given already.
    public var hasResponded: Bool { deliver.withLock { $0 == nil } }
}
