import CWebSockets

/// Commands from any thread for an ``HTTPClient``'s service thread.
enum HTTPClientCommand: Sendable {
    case start(id: UInt64, request: HTTPClientRequest, target: WebSocketURL, slot: ResponseSlot, sink: (any HTTPResponseSink)?)
    /// Ends a request early (its timeout passed, or its task was cancelled).
    case abort(id: UInt64, error: NetError)
}

/// The service-thread side of an ``HTTPClient``: any number of ``HTTPExchange``s on one
/// context, found by the ID each wsi carries. Every method runs on the service thread.
final class HTTPClientCore: LWSCallbackHandler {
    private let mailbox: Mailbox<HTTPClientCommand>
    private let maxResponseSize: Int
    private var context: OpaquePointer?
    private var exchanges: [UInt64: HTTPExchange] = [:]

    init(mailbox: Mailbox<HTTPClientCommand>, maxResponseSize: Int) {
        self.mailbox = mailbox
        self.maxResponseSize = maxResponseSize
    }

    func serviceStarted(_ context: OpaquePointer) {
        self.context = context
    }

    func serviceStopped() {
        context = nil
        for exchange in Array(exchanges.values) { exchange.abort(NetError(.cancelled, "the HTTP client stopped")) }
        // Commands that arrived after the last drain never started.
        for case .start(_, _, _, let slot, _) in mailbox.take() {
            slot.finish(.failure(NetError(.cancelled, "the HTTP client stopped")))
        }
    }

    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
            for command in mailbox.take() { apply(command) }
            return 0
        }
        if let id = lws_get_opaque_user_data(wsi).map({ UInt64(UInt(bitPattern: $0)) }),
            let exchange = exchanges[id], let result = exchange.handle(wsi, reason, input, length, user: user) {
            return result
        }
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }

    private func apply(_ command: HTTPClientCommand) {
        switch command {
        case .start(let id, let request, let target, let slot, let sink):
            guard !slot.isFinished else { return }  // timed out or cancelled while queued
            guard let context else {
                slot.finish(.failure(NetError(.cancelled, "the HTTP client stopped")))
                return
            }
            let exchange = HTTPExchange(
                id: id, request: request, target: target, maxResponseSize: maxResponseSize, slot: slot,
                sink: sink, onFinish: { [weak self] finished in self?.exchanges[finished.id] = nil })
            exchanges[id] = exchange
            exchange.connect(context)
        case .abort(let id, let error):
            exchanges[id]?.abort(error)
        }
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension HTTPClientCore: Sendable {}
