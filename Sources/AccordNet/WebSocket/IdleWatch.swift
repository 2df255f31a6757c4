/// When a silent WebSocket is pinged and when it is given up on. Counts restart on
/// any byte from the peer (a frame, a piece of one, a pong).
struct IdlePolicy: Sendable {
    var pingAfter: Duration?
    var hangUpAfter: Duration?
}

/// The idle rule of one server connection as a pure state machine, driven by the
/// connection's timer with the time passed in: silent for `pingAfter`, it is pinged
/// (again every `pingAfter` while it stays silent); silent for `hangUpAfter`, it is
/// dropped. The server owns this because lws' own idle policy (its retry/validity
/// policy) only runs for connections in its WebSocket role, and server connections
/// stay raw sockets (see `ServerWebSocket`).
///
/// Hearing from the peer only records the time: the timer is re-armed when it fires,
/// never per read, so a busy connection costs no timer-list work (lws keeps its timers
/// in one sorted list).
struct IdleWatch {
    enum Decision: Equatable {
        /// Check again after this long.
        case wait(Duration)
        /// Send a ping now, then check again after this long.
        case ping(thenWait: Duration)
        /// Silent past the hang-up time: close without a close frame.
        case hangUp
    }

    let policy: IdlePolicy
    private(set) var lastHeard: ContinuousClock.Instant
    private var pingedAt: ContinuousClock.Instant?

    /// Nil when the policy neither pings nor hangs up.
    init?(policy: IdlePolicy, now: ContinuousClock.Instant) {
        guard policy.pingAfter != nil || policy.hangUpAfter != nil else { return nil }
        self.policy = policy
        self.lastHeard = now
    }

    /// How long until the first check.
    var firstWait: Duration { [policy.pingAfter, policy.hangUpAfter].compactMap { $0 }.min() ?? .seconds(1) }

    mutating func heard(at now: ContinuousClock.Instant) {
        lastHeard = now
        pingedAt = nil
    }

    mutating func check(at now: ContinuousClock.Instant) -> Decision {
        if let hangUp = policy.hangUpAfter, now - lastHeard >= hangUp { return .hangUp }
        var ping = false
        if let pingAfter = policy.pingAfter, now - (pingedAt ?? lastHeard) >= pingAfter {
            pingedAt = now
            ping = true
        }
        var deadlines: [ContinuousClock.Instant] = []
        if let hangUp = policy.hangUpAfter { deadlines.append(lastHeard + hangUp) }
        if let pingAfter = policy.pingAfter { deadlines.append((pingedAt ?? lastHeard) + pingAfter) }
        // A timer never fires early, but keep a floor so a clock quirk cannot spin.
        let wait = max((deadlines.min() ?? now) - now, .milliseconds(10))
        return ping ? .ping(thenWait: wait) : .wait(wait)
    }
}
