/// The client's network state as a pure state machine: the mode (`auto`, or pinned by
/// the app), whether it is online (a connection is established), and why it last
/// changed. Exactly one ``NetworkModeEvent`` is emitted per transition, that is per
/// change of ``mode`` or ``isOnline``; a failed reconnect attempt changes neither and
/// says nothing.
///
/// Outside `offline`, a lost connection schedules a reconnect through the
/// ``ReconnectPolicy`` (the mode stays what it was); a successful one resets the backoff.
public struct NetworkModeMachine: Sendable {
    public private(set) var mode: NetworkMode = .auto
    public private(set) var isOnline = false
    /// Why the state last changed; nil before the first transition.
    public private(set) var reason: NetworkModeReason?
    public private(set) var reconnect: ReconnectPolicy
    /// A connection attempt is under way.
    public private(set) var isConnecting = false
    /// When the scheduled reconnect is due (ms).
    public private(set) var reconnectAt: UInt64?

    public init(reconnect: ReconnectPolicy = ReconnectPolicy()) {
        self.reconnect = reconnect
    }

    /// The client starts: connect unless pinned offline.
    public mutating func start() -> [NetworkModeAction] {
        connectIfIdle()
    }

    // MARK: The app

    /// Pins the client offline: the connection is closed and not rebuilt.
    public mutating func goOffline() -> [NetworkModeAction] {
        let before = snapshot
        var actions: [NetworkModeAction] = []
        if isOnline || isConnecting { actions.append(.disconnect) }
        mode = .offline
        isOnline = false
        isConnecting = false
        reconnectAt = nil
        return actions + transition(from: before, reason: .userSet)
    }

    /// Pins the client online: connect now if not connected or connecting.
    public mutating func goOnline() -> [NetworkModeAction] {
        let before = snapshot
        mode = .online
        return transition(from: before, reason: .userSet) + connectNow()
    }

    /// Back to `auto`: connected or reconnecting as in `online`.
    public mutating func useAutomaticMode() -> [NetworkModeAction] {
        let before = snapshot
        mode = .auto
        return transition(from: before, reason: .userSet) + connectIfIdle()
    }

    // MARK: The connection

    /// The connection is established (the server's hello arrived).
    public mutating func connected() -> [NetworkModeAction] {
        isConnecting = false
        // A connection that completes after goOffline() is not wanted.
        guard mode != .offline else { return [.disconnect] }
        reconnect.reset()
        reconnectAt = nil
        let before = snapshot
        isOnline = true
        return transition(from: before, reason: .connectivityRestored)
    }

    /// The connection was lost, or an attempt failed (then nothing changes but the
    /// backoff). Schedules the next attempt unless pinned offline.
    public mutating func connectionLost(now: UInt64, random: inout some RandomNumberGenerator) -> [NetworkModeAction] {
        isConnecting = false
        guard mode != .offline else { return [] }
        let before = snapshot
        isOnline = false
        let at = now + reconnect.nextDelay(using: &random)
        reconnectAt = at
        return transition(from: before, reason: .connectivityLost) + [.scheduleReconnect(at: at)]
    }

    /// Time passed: reconnect when the backoff is over.
    public mutating func tick(now: UInt64) -> [NetworkModeAction] {
        guard let due = reconnectAt, now >= due else { return [] }
        return connectNow()
    }

    // MARK: Helpers

    private mutating func connectIfIdle() -> [NetworkModeAction] {
        // A scheduled reconnect is the backoff at work; do not jump it.
        guard reconnectAt == nil else { return [] }
        return connectNow()
    }

    private mutating func connectNow() -> [NetworkModeAction] {
        guard mode != .offline, !isOnline, !isConnecting else { return [] }
        reconnectAt = nil
        isConnecting = true
        return [.connect]
    }

    private var snapshot: NetworkModeEvent {
        NetworkModeEvent(mode: mode, isOnline: isOnline, reason: reason ?? .userSet)
    }

    private mutating func transition(from before: NetworkModeEvent, reason: NetworkModeReason) -> [NetworkModeAction] {
        guard before.mode != mode || before.isOnline != isOnline else { return [] }
        self.reason = reason
        return [.emit(NetworkModeEvent(mode: mode, isOnline: isOnline, reason: reason))]
    }
}
