/// The outcome of a client's opening handshake, set once by the service thread and
/// awaited by whoever asked to connect (`WebSocketClient.connect`,
/// `WebSocketClientPool.connect`). Later results are ignored, so every path that can
/// end a connection attempt may report without checking who reported first.
final class Handshake: Sendable {
    private let state = Locked<(result: Result<Void, NetError>?, waiter: CheckedContinuation<Result<Void, NetError>, Never>?)>((nil, nil))

    func finish(_ result: Result<Void, NetError>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<Void, NetError>, Never>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }

    func result() async -> Result<Void, NetError> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Void, NetError>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
