import CWebSockets

/// The service-thread side of a `WebSocketClient`: one `ClientSession` on a context of
/// its own. It moves commands from the mailbox to the session and events to the
/// client's stream, and stops the service loop when the session ends (the thread has
/// nothing left to do). Every method runs on the service thread.
final class ClientCore: LWSCallbackHandler {
    private let mailbox: Mailbox<ClientCommand>
    private let session: ClientSession

    /// The thread is held strongly: its handler slot holds this core, and the thread
    /// drops it when it ends, so the cycle lasts only while the loop runs.
    init(
        target: WebSocketURL, headers: [(name: String, value: String)], maxMessageSize: Int,
        thread: ServiceThread, mailbox: Mailbox<ClientCommand>, events: AsyncStream<WebSocketClient.Event>.Continuation,
        handshake: Handshake
    ) {
        self.mailbox = mailbox
        self.session = ClientSession(
            id: 1, target: target, headers: headers, maxMessageSize: maxMessageSize, handshake: handshake,
            onEvent: { events.yield($0) },
            onFinish: { _ in
                events.finish()
                thread.requestStop()
            })
    }

    func serviceStarted(_ context: OpaquePointer) {
        session.connect(context)
    }

    func serviceStopped() {
        session.abandon("client stopped")
    }

    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
            for command in mailbox.take() { session.apply(command) }
            return 0
        }
        if ClientSession.connectionID(of: wsi) == session.id, let result = session.handle(wsi, reason, input, length, user: user) {
            return result
        }
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension ClientCore: Sendable {}
