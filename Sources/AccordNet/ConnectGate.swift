/// Admission of `WebSocketClientPool.connect` calls: hands out connection IDs and keeps
/// the handshakes waiting, so the ones the service loop never gets to can still fail.
/// Without it, a connect posted just as the pool stops would wait forever (the mailbox
/// drops commands once the loop has ended, and nothing would answer the handshake).
final class ConnectGate: Sendable {
    private struct State {
        var open = true
        var nextID: UInt64 = 1
        var waiting: [UInt64: Handshake] = [:]
    }

    private let state = Locked(State())

    /// A fresh connection ID with its registered handshake, or nil once the gate closed.
    func admit() -> (id: UInt64, handshake: Handshake)? {
        state.withLock { state in
            guard state.open else { return nil }
            let id = state.nextID
            state.nextID += 1
            let handshake = Handshake()
            state.waiting[id] = handshake
            return (id, handshake)
        }
    }

    /// The connect for `id` has its answer; the gate stops tracking it.
    func settled(_ id: UInt64) {
        _ = state.withLock { $0.waiting.removeValue(forKey: id) }
    }

    /// Refuses further connects and fails every one still waiting with `connectFailed`.
    /// Idempotent (a handshake keeps its first result).
    func close(_ reason: String) {
        let waiting = state.withLock { state -> [Handshake] in
            state.open = false
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for handshake in waiting { handshake.finish(.failure(NetError(.connectFailed, reason))) }
    }
}
