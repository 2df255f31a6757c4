/// Notices a half-open connection: pings after an interval of silence and declares the
/// connection dead after three silent intervals, as the server does to its clients.
///
/// The interval is what the server advertised in its hello, clamped to
/// ``minimumInterval``...``maximumInterval`` so a misconfigured server can neither make
/// us ping in a tight loop nor leave a dead connection unnoticed for hours.
public struct HeartbeatMonitor: Hashable, Sendable {
    public static let defaultInterval: UInt64 = 20_000
    public static let minimumInterval: UInt64 = 1_000
    public static let maximumInterval: UInt64 = 300_000
    /// Silent intervals after which the connection is dead.
    public static let silentIntervals: UInt64 = 3

    public enum Action: Hashable, Sendable {
        /// Send a WebSocket ping.
        case ping
        /// Three intervals of silence: close the connection and rebuild it.
        case dead
    }

    /// The interval in use (ms).
    public let interval: UInt64
    /// When a frame or pong last arrived (ms).
    public private(set) var lastHeard: UInt64
    /// When we last pinged, if since ``lastHeard``.
    private var lastPing: UInt64?

    /// - Parameter heartbeatSeconds: from the server's hello; 0 or nil means the default.
    public init(heartbeatSeconds: UInt64?, now: UInt64) {
        let (advertised, overflow) = (heartbeatSeconds ?? 0).multipliedReportingOverflow(by: 1_000)
        if advertised == 0 {
            interval = Self.defaultInterval
        } else {
            interval = overflow ? Self.maximumInterval : min(max(advertised, Self.minimumInterval), Self.maximumInterval)
        }
        lastHeard = now
    }

    /// Anything arrived (a frame or a pong): the connection is alive.
    public mutating func heard(now: UInt64) {
        lastHeard = max(lastHeard, now)
        lastPing = nil
    }

    /// When ``tick(now:)`` next has something to do (ms).
    public var nextDeadline: UInt64 {
        let dead = lastHeard + Self.silentIntervals * interval
        return min(dead, (lastPing ?? lastHeard) + interval)
    }

    /// Time passed: ping once per silent interval, or give up after three.
    public mutating func tick(now: UInt64) -> Action? {
        let silent = now >= lastHeard ? now - lastHeard : 0
        if silent >= Self.silentIntervals * interval { return .dead }
        guard now >= (lastPing ?? lastHeard) + interval else { return nil }
        lastPing = now
        return .ping
    }
}
