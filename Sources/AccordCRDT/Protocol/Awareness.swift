/// The awareness states one peer knows (cursors, names, presence), following the rules
/// of y-protocols `awareness.js` so Accord and Yjs peers agree on who is present.
///
/// A plain value with no timers and no clock reads: every operation that Yjs stamps with
/// the wall clock takes `now` in milliseconds, so behaviour is deterministic and tests
/// can move time freely. Operations return an ``AwarenessChange`` instead of emitting
/// events; the caller decides what to broadcast (typically
/// `encodeUpdate(clients: change.clients)` inside a ``ProtocolFrame/awareness(_:)``).
///
/// Drive ``checkTimeouts(now:)`` about every ``checkInterval`` to get Yjs's liveness
/// behaviour: our state renewed every 15 s, silent peers dropped after 30 s.
public struct Awareness: Sendable {
    /// A remote client not heard from for this long (ms) is dropped locally (Yjs `outdatedTimeout`).
    public static let outdatedTimeout: UInt64 = 30_000
    /// Our own state is re-announced once it is this old (ms), well before peers time us out.
    public static let renewInterval: UInt64 = outdatedTimeout / 2
    /// How often Yjs runs its check (ms); a suggestion for callers of ``checkTimeouts(now:)``.
    public static let checkInterval: UInt64 = outdatedTimeout / 10

    /// What is known about a client's entry apart from its state.
    public struct Meta: Hashable, Sendable {
        /// The newest clock accepted for the client; kept after the client leaves so a
        /// stale entry cannot bring it back.
        public var clock: UInt64
        /// When (ms, caller's time base) the entry was last accepted.
        public var lastUpdated: UInt64

        public init(clock: UInt64, lastUpdated: UInt64) {
            self.clock = clock
            self.lastUpdated = lastUpdated
        }
    }

    /// Our client id (the document's client id in Yjs).
    public let localClientID: ClientID
    /// Current states of every present client, ours included. Absent = left or unknown.
    public private(set) var states: [ClientID: AnyValue]
    /// Clock and time of the last accepted entry of every client ever seen.
    public private(set) var meta: [ClientID: Meta]

    /// Starts present with the empty object at clock 0, as a Yjs `Awareness` does.
    public init(localClientID: ClientID, now: UInt64) {
        self.localClientID = localClientID
        self.states = [localClientID: .object(OrderedObject())]
        self.meta = [localClientID: Meta(clock: 0, lastUpdated: now)]
    }

    /// Our state, or `nil` after we left.
    public var localState: AnyValue? { states[localClientID] }

    /// The clock of our latest announcement.
    public var localClock: UInt64 { meta[localClientID]?.clock ?? 0 }

    /// Replaces our state and advances our clock; `nil` (or JSON null) announces that we
    /// leave. Broadcast `encodeUpdate(clients: [localClientID])` afterwards.
    @discardableResult
    public mutating func setLocalState(_ state: AnyValue?, now: UInt64) -> AwarenessChange {
        let state = AwarenessUpdate.Entry.normalized(state)
        let previous = states[localClientID]
        let clock = meta[localClientID].map { Self.bump($0.clock) } ?? 0
        states[localClientID] = state
        meta[localClientID] = Meta(clock: clock, lastUpdated: now)
        var change = AwarenessChange()
        if let state {
            if let previous {
                change.updated.append(localClientID)
                if previous != state { change.changed.append(localClientID) }
            } else {
                change.added.append(localClientID)
            }
        } else {
            // Reported even when we had already left, as Yjs does: the new clock must
            // still reach peers.
            change.removed.append(localClientID)
        }
        return change
    }

    /// Applies a peer's update entry by entry.
    ///
    /// An entry is accepted when its clock is newer than the one we hold for that client
    /// (0 for a client never seen), or equal with a null state while the client is
    /// present: that is how one peer tells others a third one timed out. A first-ever
    /// entry with clock 0 is therefore ignored, exactly as in Yjs.
    ///
    /// Two Yjs quirks are kept for parity, since peers and relays depend on the same
    /// lists: a client that left and returns is reported in ``AwarenessChange/updated``
    /// (not `added`), and a null entry for a client we already consider gone is still
    /// reported as removed. When a peer declares *our* client gone, our state is kept,
    /// our clock moves past theirs, our id appears in `removed` (as Yjs reports it) and
    /// ``AwarenessChange/localStateReasserted`` tells the caller to re-broadcast.
    /// Entries with a clock above ``AwarenessUpdate/maxClock`` cannot come off the wire
    /// and are ignored.
    public mutating func apply(_ update: AwarenessUpdate, now: UInt64) -> AwarenessChange {
        var change = AwarenessChange()
        for entry in update.entries where entry.clock <= AwarenessUpdate.maxClock {
            let id = entry.clientID
            let known = meta[id]
            let previous = states[id]
            let currentClock = known?.clock ?? 0
            let newer = currentClock < entry.clock
            let removesPresent = currentClock == entry.clock && entry.state == nil && previous != nil
            guard newer || removesPresent else { continue }

            var clock = entry.clock
            if let state = entry.state {
                states[id] = state
            } else if id == localClientID, localState != nil {
                clock = Self.bump(clock)
                change.localStateReasserted = true
            } else {
                states[id] = nil
            }
            meta[id] = Meta(clock: clock, lastUpdated: now)

            if let state = entry.state {
                if known == nil {
                    change.added.append(id)
                } else {
                    change.updated.append(id)
                    if previous != state { change.changed.append(id) }
                }
            } else if known != nil {
                change.removed.append(id)
            }
        }
        return change
    }

    /// Decodes and applies an encoded update. Decoding happens first, so a malformed
    /// update changes nothing (Yjs would have applied the entries before the fault).
    public mutating func apply(encoded bytes: [UInt8], now: UInt64) throws(AccordError) -> AwarenessChange {
        apply(try AwarenessUpdate.decode(bytes), now: now)
    }

    /// The entries for `clients`, in the given order: current state (or null for a client
    /// that left) with its latest clock. Clients never seen are skipped (Yjs would throw).
    public func update(clients: [ClientID]) -> AwarenessUpdate {
        AwarenessUpdate(clients.compactMap { id in
            meta[id].map { AwarenessUpdate.Entry(clientID: id, clock: $0.clock, state: states[id]) }
        })
    }

    /// The encoded form of ``update(clients:)``.
    public func encodeUpdate(clients: [ClientID]) -> [UInt8] {
        update(clients: clients).encode()
    }

    /// Every present client's entry, by ascending client id: the answer to a
    /// ``ProtocolFrame/queryAwareness`` and what a server sends a newly connected peer.
    public func encodeAllStates() -> [UInt8] {
        encodeUpdate(clients: states.keys.sorted())
    }

    /// Forgets the states of `clients` locally without a message, as Yjs's
    /// `removeAwarenessStates` does (used for timeouts and closed connections). Removing
    /// our own state also advances our clock so a later broadcast supersedes the old one.
    @discardableResult
    public mutating func removeStates(clients: [ClientID], now: UInt64) -> AwarenessChange {
        var change = AwarenessChange()
        for id in clients where states[id] != nil {
            states[id] = nil
            if id == localClientID {
                meta[id] = Meta(clock: Self.bump(localClock), lastUpdated: now)
            }
            change.removed.append(id)
        }
        return change
    }

    /// Yjs's periodic check. If our state is at least ``renewInterval`` old it is
    /// re-set with the next clock and `renewedLocal` is true: broadcast our entry. Then
    /// remote clients silent for ``outdatedTimeout`` or more are removed locally (no
    /// message), reported in `change.removed` by ascending client id.
    public mutating func checkTimeouts(now: UInt64) -> (change: AwarenessChange, renewedLocal: Bool) {
        var renewed = false
        if let state = localState, let own = meta[localClientID],
           Self.elapsed(since: own.lastUpdated, now: now) >= Self.renewInterval {
            setLocalState(state, now: now)
            renewed = true
        }
        let outdated = meta.filter { id, entry in
            id != localClientID && states[id] != nil
                && Self.elapsed(since: entry.lastUpdated, now: now) >= Self.outdatedTimeout
        }.keys.sorted()
        return (removeStates(clients: outdated, now: now), renewed)
    }

    /// Time since `past`, zero if the caller's clock went backwards.
    static func elapsed(since past: UInt64, now: UInt64) -> UInt64 {
        now >= past ? now - past : 0
    }

    /// The next clock, held at ``AwarenessUpdate/maxClock`` so it stays readable by
    /// JavaScript peers (unreachable in practice: one change per millisecond would take
    /// 285,000 years).
    static func bump(_ clock: UInt64) -> UInt64 {
        clock < AwarenessUpdate.maxClock ? clock + 1 : AwarenessUpdate.maxClock
    }
}
