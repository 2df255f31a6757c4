/// A document's presence, as `document.presence`: our state (merged key by key), the
/// other clients', and their events. Built on the Yjs awareness protocol, so Yjs
/// clients see it too. See ``AccordClient/setPresence(_:_:)``.
public struct PresenceHandle: Sendable {
    public let document: AccordDocument

    /// Merges `fields` into our state (top-level keys; `.undefined` removes one) and
    /// sends it; kept while offline and sent on every (re)connect.
    public func set(_ fields: [String: AnyValue]) async throws(AccordError) {
        try await document.client.setPresence(document.id, fields)
    }

    /// Our state; nil until set.
    public var mine: AnyValue? { get async throws(AccordError) { try await document.client.myPresence(document.id) } }

    /// The other clients' states by client id (empty while offline).
    public var others: [ClientID: AnyValue] {
        get async throws(AccordError) { try await document.client.presences(document.id) }
    }

    /// `initialized`, `watched`, `unwatched` and `presenceChanged`, for ours, the
    /// others' or all.
    public func events(_ filter: PresenceFilter = .all) async -> AsyncStream<PresenceEvent> {
        await document.client.presenceEvents(document.id, filter: filter)
    }
}

extension AccordDocument {
    public var presence: PresenceHandle { PresenceHandle(document: self) }

    /// Sends an ephemeral message to the document's other clients (never stored).
    /// Returns false when offline: broadcasts are not queued.
    @discardableResult
    public func broadcast(topic: String, payload: String) async throws(AccordError) -> Bool {
        try await client.broadcast(id, topic: topic, payload: payload)
    }

    /// Broadcasts from the document's other clients, of one topic or (nil) all.
    public func broadcasts(topic: String? = nil) async -> AsyncStream<BroadcastMessage> {
        await client.broadcasts(id, topic: topic)
    }
}
