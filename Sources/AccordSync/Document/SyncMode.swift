/// How one document exchanges changes with the server; changeable at any time.
///
/// | mode | on (re)connect | local updates | server's live updates | server's step 1 | awareness, broadcast in |
/// |---|---|---|---|---|---|
/// | `realtime` | step 1 + unacked updates | sent at once | applied | answered | delivered |
/// | `realtimePushOnly` | unacked updates | sent at once | ignored | answered | ignored |
/// | `realtimeSyncOff` | nothing | kept in the store | ignored | ignored | ignored |
/// | `manual` | nothing | kept until ``DocumentSyncMachine/syncRequested(now:)`` | ignored | answered | ignored |
/// | `polling` | a round at once | sent at the next round | ignored | answered | ignored |
///
/// A round is: our step 1 plus every unacknowledged update not yet sent on this
/// connection; the server's step 2 is applied only in answer to our own step 1.
/// Ignoring live updates outside `realtime` loses nothing: the next round's step 2 is
/// computed from our state vector, so it carries everything we skipped.
public enum SyncMode: Hashable, Sendable {
    /// Full two-way live sync (the default).
    case realtime
    /// Our changes go up live; nothing from the server is applied.
    case realtimePushOnly
    /// The connection stays up for other documents; this one exchanges nothing.
    case realtimeSyncOff
    /// Nothing until the app asks for a sync.
    case manual
    /// A round every `interval` milliseconds, no live stream.
    case polling(interval: UInt64)

    /// `polling` with the default interval of 3 s.
    public static let polling = SyncMode.polling(interval: defaultPollingInterval)
    public static let defaultPollingInterval: UInt64 = 3_000

    /// Whether local updates are sent as soon as they are durable.
    var pushesLive: Bool { self == .realtime || self == .realtimePushOnly }
    /// Whether the server's live updates, awareness and broadcasts are taken in.
    var pullsLive: Bool { self == .realtime }
    /// Whether a round asks the server for what we lack (our step 1).
    var pulls: Bool { self != .realtimePushOnly && self != .realtimeSyncOff }
    /// Whether anything at all is exchanged.
    var exchanges: Bool { self != .realtimeSyncOff }
}
