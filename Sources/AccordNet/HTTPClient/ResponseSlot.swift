/// The outcome of one ``HTTPClient`` request, set once (by the service thread, the
/// timeout, or a cancellation) and awaited by the caller. Later results are ignored,
/// so every path that can end a request may report without checking who was first.
final class ResponseSlot: Sendable {
    typealias Outcome = Result<HTTPClientResponse, NetError>
    private let state = Locked<(outcome: Outcome?, waiter: CheckedContinuation<Outcome, Never>?)>((nil, nil))

    /// True if this call set the outcome.
    @discardableResult
    func finish(_ outcome: Outcome) -> Bool {
        let (won, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Outcome, Never>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(returning: outcome)
        return won
    }

    var isFinished: Bool { state.withLock { $0.outcome != nil } }

    func outcome() async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Outcome? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
