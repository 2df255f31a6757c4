public import AccordCRDT
import AccordStore
import Foundation

/// An ephemeral room with no document behind it: a key (``ChannelKey``, such as
/// `room-1.section-a`), a live session count, and broadcasts relayed by the server and
/// never stored. Attach it to a client to take part:
///
/// ```swift
/// let lobby = try Channel(key: "room-1.lobby")          // INVALID_ARGUMENT for a bad key
/// try await client.attachChannel(lobby)                  // realtime: counts and broadcasts pushed
/// lobby.getSessionCount()                                // distinct clients at room-1.lobby or under it
/// for await change in lobby.subscribePresenceChange() { … }
/// try await lobby.broadcast(topic: "wave", payload: #"{"from":"ann"}"#)
/// ```
///
/// Thread-safe: the client updates it on its executor, the app reads and subscribes
/// from anywhere (a lock guards the state; no call waits while holding it).
public final class Channel: @unchecked Sendable {
    public let key: ChannelKey

    // Invariant: everything below is read and written with `lock` held.
    private let lock = NSLock()
    private weak var client: AccordClient?
    private var realtime = true
    private var sessionCount = 0
    private var broadcastStreams = SubscriberList<BroadcastMessage, String?>()
    private var presenceStreams = SubscriberList<ChannelPresenceChange, Void>()

    /// Throws `INVALID_ARGUMENT` when `key` breaks the ``ChannelKey`` rule: letters,
    /// digits, `-` and `_` in non-empty segments separated by `.`, at most 128 bytes.
    public convenience init(key: String) throws(AccordError) {
        self.init(key: try ChannelKey(validating: key))
    }

    public init(key: ChannelKey) {
        self.key = key
    }

    /// The last session count the server sent: distinct connected clients at this key
    /// or under it, this one included. 0 until attached; a channel attached with
    /// `isRealtime: false` refreshes it with ``AccordClient/syncChannel(_:)``.
    public func getSessionCount() -> Int { lock.withLock { sessionCount } }

    /// Whether a client has this channel attached.
    public var isAttached: Bool { lock.withLock { client != nil } }

    /// Whether the server pushes counts and broadcasts to it (as attached).
    public var isRealtime: Bool { lock.withLock { realtime } }

    /// Sends a message to the channel's other realtime members (see
    /// ``AccordClient/broadcast(_:topic:payload:)``).
    /// - Throws: `CHANNEL_NOT_ATTACHED`, or what the client's broadcast throws.
    @discardableResult
    public func broadcast(topic: String, payload: String) async throws(AccordError) -> Bool {
        guard let client = lock.withLock({ client }) else {
            throw AccordError(.channelNotAttached, "channel \(key) is not attached to a client")
        }
        return try await client.broadcast(key, topic: topic, payload: payload)
    }

    /// The broadcasts of one topic that others send from now on.
    public func subscribeTopic(_ topic: String) -> AsyncStream<BroadcastMessage> { broadcasts(filter: topic) }

    /// Every broadcast others send from now on.
    public func subscribeBroadcast() -> AsyncStream<BroadcastMessage> { broadcasts(filter: nil) }

    /// Each change of the session count from now on (realtime channels; a
    /// ``AccordClient/syncChannel(_:)`` that finds a new count reports it too).
    public func subscribePresenceChange() -> AsyncStream<ChannelPresenceChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChannelPresenceChange.self)
        let id = lock.withLock { presenceStreams.add(document: Self.streamKey, filter: (), continuation) }
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { self?.presenceStreams.remove(id) } }
        return stream
    }

    private func broadcasts(filter topic: String?) -> AsyncStream<BroadcastMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: BroadcastMessage.self)
        let id = lock.withLock { broadcastStreams.add(document: Self.streamKey, filter: topic, continuation) }
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { self?.broadcastStreams.remove(id) } }
        return stream
    }

    /// ``SubscriberList`` files streams by document; a channel's are all one channel's.
    private static let streamKey: DocumentID = "channel"

    // MARK: Driven by the client

    /// The client took the channel; nil when another client has it.
    func attach(to newClient: AccordClient, realtime: Bool) -> Bool {
        lock.withLock {
            if let client, client !== newClient { return false }
            client = newClient
            self.realtime = realtime
            return true
        }
    }

    func isAttached(to candidate: AccordClient) -> Bool { lock.withLock { client === candidate } }

    /// The client let go: the count is unknown again and every stream ends.
    func detached() {
        let (broadcasts, presence) = lock.withLock {
            client = nil
            sessionCount = 0
            defer {
                broadcastStreams = SubscriberList()
                presenceStreams = SubscriberList()
            }
            return (broadcastStreams, presenceStreams)
        }
        // Outside the lock: finishing runs each stream's onTermination, which takes it.
        broadcasts.finishAll()
        presence.finishAll()
    }

    /// A count from the server; a change is reported to the presence streams.
    func received(count: Int) {
        lock.withLock {
            guard count != sessionCount else { return }
            sessionCount = count
            presenceStreams.yield(ChannelPresenceChange(key: key, sessionCount: count), document: Self.streamKey) { _ in true }
        }
    }

    func received(_ message: BroadcastMessage) {
        lock.withLock {
            broadcastStreams.yield(message, document: Self.streamKey) { topic in topic == nil || topic == message.topic }
        }
    }
}

/// The session count of a channel changed.
public struct ChannelPresenceChange: Hashable, Sendable {
    public var key: ChannelKey
    /// Distinct connected clients at the key or under it.
    public var sessionCount: Int
}
