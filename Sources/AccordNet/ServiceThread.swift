import CWebSockets
import Foundation

/// What a `ServiceThread` calls. Every method runs on the service thread.
protocol LWSCallbackHandler: AnyObject {
    /// One lws callback. Return 0 to continue, nonzero to close `wsi`.
    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32
    /// First thing on the service thread, before the first `lws_service`.
    func serviceStarted(_ context: OpaquePointer)
    /// Last thing on the service thread, after the context was destroyed.
    func serviceStopped()
}

/// The object `lws_context_user` points at. The handler is set by `ServiceThread.start`
/// and cleared when the thread ends; callbacks before that (during context creation)
/// get lws' default HTTP handling.
private final class CallbackBox {
    var handler: (any LWSCallbackHandler)?
}

/// The C callback of every AccordNet context: finds the handler through the context's
/// user pointer.
func accordLWSCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let context = lws_get_context(wsi), let raw = lws_context_user(context),
        let handler = Unmanaged<CallbackBox>.fromOpaque(raw).takeUnretainedValue().handler
    else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    return handler.handle(wsi, reason, user, input, length)
}

/// Runs `lws_service` for one context on a dedicated `Thread`, never on a Swift
/// concurrency thread (a service loop there would block the cooperative pool).
/// Other threads reach the loop only through `wake()` (`lws_cancel_service`, which is
/// thread-safe, unlike `lws_callback_on_writable`) and `requestStop()`; the handler then
/// sees `LWS_CALLBACK_EVENT_WAIT_CANCELLED` and drains its mailbox.
final class ServiceThread: @unchecked Sendable {
    // Invariant: `context` and `box.handler` are written before `start` and afterwards
    // touched only by the service thread (Thread.start orders the earlier writes before
    // it). What other threads touch is `state`, behind a lock, and the immutable lets.
    private var context: LWSContext?
    private let box = CallbackBox()
    private let contextPointer: OpaquePointer
    private let state = Locked(State())

    private struct State {
        /// False from just before `lws_context_destroy`: `wake` must not touch it after.
        var contextAlive = true
        var started = false
        var stopRequested = false
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The bound port (listening contexts only).
    let listenPort: Int?

    init(listen: (host: String, port: Int)?, clientTLS: ClientTLS? = nil) throws(NetError) {
        let context = try LWSContext(listen: listen, user: Unmanaged.passUnretained(box).toOpaque(), clientTLS: clientTLS)
        self.context = context
        self.contextPointer = context.pointer
        self.listenPort = context.listenPort
    }

    deinit {
        // Only reached without `start` (a started thread holds `self` until it ends).
        context = nil
    }

    /// Starts the service thread. The thread keeps `self` and `handler` alive until it
    /// ends, then drops the handler (breaking the handler -> thread -> handler cycle).
    func start(handler: any LWSCallbackHandler, name: String) {
        state.withLock { $0.started = true }
        box.handler = handler
        let thread = Thread { [self] in run() }
        thread.name = name
        thread.start()
    }

    private func run() {
        guard let context, let handler = box.handler else { return }
        handler.serviceStarted(context.pointer)
        while !state.withLock({ $0.stopRequested }) {
            // Sleeps in poll() until socket activity, a timer or lws_cancel_service.
            if lws_service(context.pointer, 0) < 0 { break }  // fatal: stop rather than spin
        }
        state.withLock { $0.contextAlive = false }
        self.context = nil  // lws_context_destroy: CLOSED callbacks run here, on this thread
        handler.serviceStopped()
        box.handler = nil
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Makes `lws_service` return and the handler see `LWS_CALLBACK_EVENT_WAIT_CANCELLED`.
    /// Any thread. A no-op once the context is being destroyed.
    func wake() {
        state.withLock { state in
            if state.contextAlive { lws_cancel_service(contextPointer) }
        }
    }

    /// False once the context is being destroyed: posting to it is pointless.
    var isRunning: Bool { state.withLock { $0.contextAlive } }

    /// Asks the loop to end; returns at once. Any thread.
    func requestStop() {
        state.withLock { state in
            state.stopRequested = true
            if state.contextAlive { lws_cancel_service(contextPointer) }
        }
    }

    /// Suspends (without blocking a thread) until the service thread has ended and the
    /// context is destroyed. Returns at once if the thread never started.
    func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.finished || !state.started { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}

/// Commands from any thread to the service thread, in posting order. Posting into an
/// empty mailbox wakes the loop; the handler drains it on `EVENT_WAIT_CANCELLED`.
final class Mailbox<Command: Sendable>: Sendable {
    private let queue = Locked<[Command]>([])
    private let thread: ServiceThread

    init(thread: ServiceThread) { self.thread = thread }

    /// Drops the command when the loop has ended (a connection of a stopped server).
    func post(_ command: Command) {
        guard thread.isRunning else { return }
        let wasEmpty = queue.withLock { queue -> Bool in
            queue.append(command)
            return queue.count == 1
        }
        if wasEmpty { thread.wake() }
    }

    /// Everything posted so far. Service thread.
    func take() -> [Command] {
        queue.withLock { queue in
            defer { queue = [] }
            return queue
        }
    }
}
