/// Whether the client decides by itself when to be connected (`auto`), or the app
/// pinned it with `goOnline()` / `goOffline()`.
public enum NetworkMode: Hashable, Sendable {
    /// Connect, and reconnect with backoff whenever the connection is lost (the default).
    case auto
    /// Pinned online by the app: connect and reconnect as in `auto`, until unpinned.
    case online
    /// Pinned offline by the app: no connection at all.
    case offline
}

/// Why the network state last changed. The raw values are the strings other SDKs use.
public enum NetworkModeReason: String, Hashable, Sendable {
    /// The app called `goOffline()`, `goOnline()` or returned to `auto`.
    case userSet = "user_set"
    /// An established connection was lost.
    case connectivityLost
    /// A connection is established (again).
    case connectivityRestored
}

/// One transition of the network state: the mode or `isOnline` changed.
public struct NetworkModeEvent: Hashable, Sendable {
    public var mode: NetworkMode
    public var isOnline: Bool
    public var reason: NetworkModeReason

    public init(mode: NetworkMode, isOnline: Bool, reason: NetworkModeReason) {
        self.mode = mode
        self.isOnline = isOnline
        self.reason = reason
    }
}

/// What a ``NetworkModeMachine`` asks its driver to do.
public enum NetworkModeAction: Hashable, Sendable {
    /// Open the connection; report ``NetworkModeMachine/connected()`` or
    /// ``NetworkModeMachine/connectionLost(now:random:)`` (a failed attempt counts as lost).
    case connect
    /// Close the connection.
    case disconnect
    /// Call ``NetworkModeMachine/tick(now:)`` at this time (ms) to reconnect.
    case scheduleReconnect(at: UInt64)
    /// Tell the app.
    case emit(NetworkModeEvent)
}
