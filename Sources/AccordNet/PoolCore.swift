import CWebSockets

/// The service-thread side of a `WebSocketClientPool`: many `ClientSession`s on one
/// context, found by the connection ID each wsi carries. It starts connections posted
/// to the mailbox, routes commands and callbacks to their sessions and forgets a
/// session when it ends. Every method runs on the service thread.
final class PoolCore: LWSCallbackHandler {
    private let mailbox: Mailbox<PoolCommand>
    private let gate: ConnectGate
    /// Held strongly, as in `ClientCore`: the thread drops this core when it ends.
    private let thread: ServiceThread
    private var context: OpaquePointer?
    private var sessions: [UInt64: ClientSession] = [:]
    /// Set by `closeAll`: the loop ends once the last session has.
    private var closingAll = false

    init(mailbox: Mailbox<PoolCommand>, gate: ConnectGate, thread: ServiceThread) {
        self.mailbox = mailbox
        self.gate = gate
        self.thread = thread
    }

    func serviceStarted(_ context: OpaquePointer) {
        self.context = context
    }

    func serviceStopped() {
        gate.close("pool stopped")
        // lws_context_destroy closed every wsi; sessions left never saw their end.
        for session in Array(sessions.values) { session.abandon("pool stopped") }
        sessions = [:]
        context = nil
    }

    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
            drainMailbox()
            return 0
        }
        if let id = ClientSession.connectionID(of: wsi), let session = sessions[id],
            let result = session.handle(wsi, reason, input, length, user: user)
        {
            return result
        }
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }

    private func drainMailbox() {
        for command in mailbox.take() {
            switch command {
            case .connect(let request):
                guard let context else { continue }
                let session = ClientSession(
                    id: request.id, target: request.target, headers: request.headers,
                    maxMessageSize: request.maxMessageSize, handshake: request.handshake, onEvent: request.onEvent,
                    onFinish: { [unowned self] in self.ended($0) })
                sessions[request.id] = session  // before connect: lws may fail it inside the call
                session.connect(context)
            case .connection(let id, let command):
                sessions[id]?.apply(command)
            case .closeAll(let code, let reason):
                closingAll = true
                for session in Array(sessions.values) { session.apply(.close(code: code, reason: reason)) }
                stopIfIdle()
            }
        }
    }

    private func ended(_ session: ClientSession) {
        sessions[session.id] = nil
        stopIfIdle()
    }

    private func stopIfIdle() {
        if closingAll, sessions.isEmpty { thread.requestStop() }
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension PoolCore: Sendable {}
