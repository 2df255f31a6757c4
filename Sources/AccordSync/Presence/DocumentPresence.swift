public import AccordCRDT

/// The presence of one open document: our state and the others', on top of the awareness
/// protocol (AccordCRDT's ``Awareness``), so Yjs peers in the same room see us as an
/// ordinary awareness client and we see them.
///
/// A pure value, like the other machines of this module: events in (``set(_:now:)``,
/// ``connectionReady(now:)``, ``connectionLost(now:)``, ``received(_:now:)``,
/// ``leave(now:)``, ``tick(now:)``), ``PresenceAction``s out, time passed in as
/// milliseconds. The driver calls ``tick(now:)`` at ``nextDeadline``.
///
/// Rules:
/// - Our client id is the document's `Doc` client id, as in Yjs. We announce nothing
///   until the app sets a state (a Yjs `Awareness` starts with `{}`; an app that never
///   sets presence should not appear as a collaborator).
/// - Our state is sent on every (re)connect with a new clock: the server keeps the
///   clock of a connection that left, and would ignore an entry that does not pass it.
/// - The first awareness update after a connect is reported as `initialized` (the server
///   sends its states when we join, and answers the query awareness we send). On a lost
///   connection the others are forgotten (`unwatched`): the server forgets us too.
/// - Others not renewed for ``Awareness/outdatedTimeout`` (30 s) are dropped; our own
///   state is renewed every ``Awareness/renewInterval`` (15 s) while connected.
/// - Our state belongs to the app: a peer's entry that replaces it (someone claiming our
///   client id) or declares us gone is answered with our state under a newer clock.
public struct DocumentPresence: Sendable {
    public private(set) var awareness: Awareness
    /// Whether a connection is ready for the document (between ``connectionReady(now:)``
    /// and ``connectionLost(now:)``); only then is anything sent.
    public private(set) var isConnected = false
    /// Set on connect until the first awareness update arrives.
    public private(set) var awaitsInitialState = false

    /// Nothing is timed until a state is set, so no time is needed here.
    public init(localClientID: ClientID) {
        var awareness = Awareness(localClientID: localClientID, now: 0)
        awareness.setLocalState(nil, now: 0)
        self.awareness = awareness
    }

    public var localClientID: ClientID { awareness.localClientID }

    /// Our state (always an object), or nil when none was set or we left.
    public var myPresence: AnyValue? { awareness.localState }

    /// The other clients present, by client id.
    public var others: [ClientID: AnyValue] {
        awareness.states.filter { $0.key != localClientID }
    }

    // MARK: Events

    /// The connection is ready for the document: announce our state (if any) and ask for
    /// everyone's.
    public mutating func connectionReady(now: UInt64) -> [PresenceAction] {
        isConnected = true
        awaitsInitialState = true
        var actions: [PresenceAction] = []
        if let state = awareness.localState {
            awareness.setLocalState(state, now: now)
            actions.append(sendLocalEntry())
        }
        actions.append(.send(.queryAwareness))
        return actions
    }

    /// The connection is gone: the others are forgotten, each with an `unwatched`. Our
    /// state is kept for the next connection.
    public mutating func connectionLost(now: UInt64) -> [PresenceAction] {
        isConnected = false
        awaitsInitialState = false
        let gone = others.keys.sorted()
        awareness = Self.keepingOnlyLocal(awareness, now: now)
        return gone.map { .emit(PresenceEvent(.unwatched($0), isMine: false)) }
    }

    /// `awareness` with every other client forgotten, clock included, and ours as it was.
    ///
    /// Removing states alone (Yjs's `removeAwarenessStates`) keeps the others' clocks,
    /// so after a reconnect the server's copy of a peer that has not changed since comes
    /// with the same clock and would be ignored until the peer renews (up to 15 s).
    static func keepingOnlyLocal(_ awareness: Awareness, now: UInt64) -> Awareness {
        let id = awareness.localClientID
        var fresh = Awareness(localClientID: id, now: now)
        // Clock 1 and no state, as after our init; then our real entry, which is newer
        // (every set after init moves past 1) and is taken as is for our own id.
        fresh.setLocalState(nil, now: now)
        if awareness.localClock > fresh.localClock {
            let own = AwarenessUpdate.Entry(clientID: id, clock: awareness.localClock, state: awareness.localState)
            _ = fresh.apply(AwarenessUpdate([own]), now: now)
        }
        return fresh
    }

    /// An awareness update from the server. Decoded before anything changes: a malformed
    /// one throws `MALFORMED_MESSAGE` and changes nothing.
    public mutating func received(_ bytes: [UInt8], now: UInt64) throws(AccordError) -> [PresenceAction] {
        let before = awareness.states
        let change = try awareness.apply(encoded: bytes, now: now)
        var actions: [PresenceAction] = []
        let mine = before[localClientID]
        if awareness.localState != mine {
            // A peer's entry for our id replaced our state: put ours back, above its clock.
            awareness.setLocalState(mine, now: now)
            if isConnected { actions.append(sendLocalEntry()) }
        } else if change.localStateReasserted, isConnected {
            actions.append(sendLocalEntry())
        }
        if awaitsInitialState {
            awaitsInitialState = false
            actions.append(.emit(PresenceEvent(.initialized(others: others), isMine: false)))
            return actions
        }
        var seen = Set<ClientID>()
        for id in change.clients where id != localClientID && seen.insert(id).inserted {
            if let event = Self.event(for: id, before: before[id], after: awareness.states[id], isMine: false) {
                actions.append(.emit(event))
            }
        }
        return actions
    }

    /// Sets top-level keys of our state, keeping the others (see ``merged(_:)`` for the
    /// value rules). Sent at once while connected, else on the next connect.
    /// - Throws: `INVALID_ARGUMENT` for a value nested too deep for JSON peers; nothing changes.
    public mutating func set(_ fields: [String: AnyValue], now: UInt64) throws(AccordError) -> [PresenceAction] {
        let state = try merged(fields)
        let before = awareness.localState
        // Sent even when unchanged, as Yjs does: it renews our entry.
        awareness.setLocalState(state, now: now)
        var actions: [PresenceAction] = isConnected ? [sendLocalEntry()] : []
        if let event = Self.event(for: localClientID, before: before, after: state, isMine: true) {
            actions.append(.emit(event))
        }
        return actions
    }

    /// The document is closing: announce that we leave (a null state), as a Yjs client
    /// does before it goes. Nothing when we had no state.
    public mutating func leave(now: UInt64) -> [PresenceAction] {
        guard awareness.localState != nil else { return [] }
        awareness.setLocalState(nil, now: now)
        var actions: [PresenceAction] = isConnected ? [sendLocalEntry()] : []
        actions.append(.emit(PresenceEvent(.unwatched(localClientID), isMine: true)))
        return actions
    }

    /// Renews our state when due and drops the others not heard from for the timeout.
    /// Nothing happens while disconnected (the others are already gone then).
    public mutating func tick(now: UInt64) -> [PresenceAction] {
        guard isConnected else { return [] }
        let (change, renewed) = awareness.checkTimeouts(now: now)
        var actions: [PresenceAction] = renewed ? [sendLocalEntry()] : []
        for id in change.removed where id != localClientID {
            actions.append(.emit(PresenceEvent(.unwatched(id), isMine: false)))
        }
        return actions
    }

    /// When ``tick(now:)`` has work: our renewal, or the first other client's timeout.
    /// Nil while disconnected or with nothing timed.
    public var nextDeadline: UInt64? {
        guard isConnected else { return nil }
        var deadlines: [UInt64] = []
        if awareness.localState != nil, let own = awareness.meta[localClientID] {
            deadlines.append(own.lastUpdated + Awareness.renewInterval)
        }
        for id in awareness.states.keys where id != localClientID {
            if let entry = awareness.meta[id] { deadlines.append(entry.lastUpdated + Awareness.outdatedTimeout) }
        }
        return deadlines.min()
    }

    // MARK: Helpers

    private func sendLocalEntry() -> PresenceAction {
        .send(.awareness(awareness.encodeUpdate(clients: [localClientID])))
    }

    /// The event a client's state moving from `before` to `after` means, if any.
    static func event(for id: ClientID, before: AnyValue?, after: AnyValue?, isMine: Bool) -> PresenceEvent? {
        switch (before, after) {
        case (nil, let state?): PresenceEvent(.watched(id, state), isMine: isMine)
        case (_?, nil): PresenceEvent(.unwatched(id), isMine: isMine)
        case (let old?, let new?) where old != new: PresenceEvent(.presenceChanged(id, new), isMine: isMine)
        default: nil
        }
    }
}
