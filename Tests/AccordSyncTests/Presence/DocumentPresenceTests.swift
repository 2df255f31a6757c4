import Testing
import AccordCRDT
@testable import AccordSync

/// The presence rules, driven by events with time passed in by hand. Peers are plain
/// AccordCRDT `Awareness` values, which follow y-protocols: what they encode is what a
/// Yjs client sends, and what they decode is what a Yjs client would see.
@Suite struct DocumentPresenceTests {
    static let me: ClientID = 1001
    static let ann: ClientID = 7
    static let bob: ClientID = 8

    /// A peer's awareness with `state` set at `now`.
    static func peer(_ id: ClientID, _ state: AnyValue, now: UInt64 = 0) -> Awareness {
        var awareness = Awareness(localClientID: id, now: now)
        awareness.setLocalState(state, now: now)
        return awareness
    }

    /// The entries of every awareness frame among `actions`.
    static func sentEntries(_ actions: [PresenceAction]) throws -> [AwarenessUpdate.Entry] {
        try actions.flatMap { action -> [AwarenessUpdate.Entry] in
            guard case .send(.awareness(let bytes)) = action else { return [] }
            return try AwarenessUpdate.decode(bytes).entries
        }
    }

    static func events(_ actions: [PresenceAction]) -> [PresenceEvent] {
        actions.compactMap { if case .emit(let event) = $0 { event } else { nil } }
    }

    static func connected(now: UInt64 = 0) -> DocumentPresence {
        var presence = DocumentPresence(localClientID: me)
        _ = presence.connectionReady(now: now)
        return presence
    }

    // MARK: Our state

    @Test func setMergesTopLevelKeysAndUndefinedRemovesOne() throws {
        var presence = DocumentPresence(localClientID: Self.me)
        #expect(presence.myPresence == nil)
        let first = try presence.set(["name": "ann", "cursor": 1], now: 0)
        #expect(presence.myPresence == ["name": "ann", "cursor": 1])
        #expect(Self.events(first) == [PresenceEvent(.watched(Self.me, ["name": "ann", "cursor": 1]), isMine: true)])

        let second = try presence.set(["cursor": 2, "color": "red"], now: 1)
        #expect(presence.myPresence == ["name": "ann", "cursor": 2, "color": "red"])
        #expect(Self.events(second) == [
            PresenceEvent(.presenceChanged(Self.me, ["name": "ann", "cursor": 2, "color": "red"]), isMine: true),
        ])
        // New keys are appended in sorted order, whatever the dictionary's order.
        #expect(presence.myPresence?.objectValue?.keys == ["cursor", "name", "color"])

        _ = try presence.set(["cursor": .undefined], now: 2)
        #expect(presence.myPresence == ["name": "ann", "color": "red"])
        // Setting what is already there changes nothing the app needs to hear about.
        #expect(Self.events(try presence.set(["name": "ann"], now: 3)).isEmpty)
    }

    @Test func valuesAreKeptAsJSONCarriesThem() throws {
        var presence = DocumentPresence(localClientID: Self.me)
        _ = try presence.set(["x": .double(2.0), "n": .double(.nan), "b": .bytes([5, 6])], now: 0)
        #expect(presence.myPresence == ["x": 2, "n": .null, "b": ["0": 5, "1": 6]])
    }

    @Test func aValueNestedTooDeepIsRefusedAndChangesNothing() throws {
        var presence = DocumentPresence(localClientID: Self.me)
        _ = try presence.set(["name": "ann"], now: 0)
        func nested(_ depth: Int) -> AnyValue {
            var value: AnyValue = 1
            for _ in 0..<depth { value = [value] }
            return value
        }
        let error = try #require(throws: AccordError.self) {
            try presence.set(["deep": nested(DocumentPresence.maxFieldDepth + 1), "name": "bob"], now: 1)
        }
        #expect(error.code == .invalidArgument)
        #expect(error.details["field"] == "deep")
        #expect(presence.myPresence == ["name": "ann"])
        #expect(presence.awareness.localClock == 2)

        // The deepest value allowed reaches a Yjs peer intact.
        _ = presence.connectionReady(now: 2)
        let sent = try Self.sentEntries(try presence.set(["deep": nested(DocumentPresence.maxFieldDepth)], now: 3))
        #expect(sent.first?.state?.objectValue?["deep"] == nested(DocumentPresence.maxFieldDepth))
    }

    @Test func ourEntryIsANormalYjsAwarenessUpdate() throws {
        var presence = Self.connected()
        let actions = try presence.set(["name": "ann"], now: 5)
        guard case .send(.awareness(let bytes)) = actions.first else {
            Issue.record("no awareness frame sent: \(actions)")
            return
        }
        let entries = try AwarenessUpdate.decode(bytes).entries
        #expect(entries.count == 1)
        #expect(entries.first?.clientID == Self.me)
        #expect(entries.first?.state == ["name": "ann"])
        // A peer that never saw us takes it (a clock of 0 would be ignored).
        var yjsPeer = Awareness(localClientID: 99, now: 0)
        let change = try yjsPeer.apply(encoded: bytes, now: 5)
        #expect(change.added == [Self.me])
        #expect(yjsPeer.states[Self.me] == ["name": "ann"])
    }

    @Test func offlineStateIsKeptAndSentWithANewClockOnEveryConnect() throws {
        var presence = DocumentPresence(localClientID: Self.me)
        // Nothing set: a connect only asks for the others.
        #expect(presence.connectionReady(now: 0) == [.send(.queryAwareness)])
        _ = presence.connectionLost(now: 1)

        let offline = try presence.set(["name": "ann"], now: 2)
        #expect(try Self.sentEntries(offline).isEmpty)

        var clocks: [UInt64] = []
        for connect in 0..<2 {
            let actions = presence.connectionReady(now: 10 + UInt64(connect))
            let entries = try Self.sentEntries(actions)
            #expect(entries.map(\.state) == [["name": "ann"]])
            clocks += entries.map(\.clock)
            #expect(actions.last == .send(.queryAwareness))
            _ = presence.connectionLost(now: 20)
        }
        // A server that kept our last clock takes the re-sent entry only if it is newer.
        #expect(clocks.count == 2 && clocks[1] > clocks[0])
    }

    @Test func leaveSendsANullStateOnceAndOnlyIfWeHadOne() throws {
        var empty = Self.connected()
        #expect(empty.leave(now: 1).isEmpty)

        var presence = Self.connected()
        _ = try presence.set(["name": "ann"], now: 1)
        let actions = presence.leave(now: 2)
        let entries = try Self.sentEntries(actions)
        #expect(entries.count == 1 && entries.first?.clientID == Self.me && entries.first?.state == nil)
        #expect(Self.events(actions) == [PresenceEvent(.unwatched(Self.me), isMine: true)])
        #expect(presence.myPresence == nil)
        #expect(presence.leave(now: 3).isEmpty)
    }

    // MARK: The others

    @Test func firstUpdateAfterConnectIsInitializedThenChangesAreEvents() throws {
        var presence = Self.connected()
        var ann = Self.peer(Self.ann, ["name": "ann"])
        var bob = Self.peer(Self.bob, ["name": "bob"])
        var server = Awareness(localClientID: 1 << 40, now: 0)
        server.setLocalState(nil, now: 0)  // a server has no state of its own
        _ = server.apply(ann.update(clients: [Self.ann]), now: 0)
        _ = server.apply(bob.update(clients: [Self.bob]), now: 0)

        let initial = try presence.received(server.encodeAllStates(), now: 1)
        #expect(Self.events(initial) == [
            PresenceEvent(.initialized(others: [Self.ann: ["name": "ann"], Self.bob: ["name": "bob"]]), isMine: false),
        ])

        let cid: ClientID = 9
        var cat = Self.peer(cid, ["name": "cat"])
        #expect(Self.events(try presence.received(cat.encodeUpdate(clients: [cid]), now: 2))
            == [PresenceEvent(.watched(cid, ["name": "cat"]), isMine: false)])

        ann.setLocalState(["name": "ann", "cursor": 3], now: 3)
        #expect(Self.events(try presence.received(ann.encodeUpdate(clients: [Self.ann]), now: 3))
            == [PresenceEvent(.presenceChanged(Self.ann, ["name": "ann", "cursor": 3]), isMine: false)])

        // A renewal of the same state is no event.
        ann.setLocalState(["name": "ann", "cursor": 3], now: 4)
        #expect(Self.events(try presence.received(ann.encodeUpdate(clients: [Self.ann]), now: 4)).isEmpty)

        bob.setLocalState(nil, now: 5)
        cat.setLocalState(nil, now: 5)
        var both = bob.update(clients: [Self.bob])
        both.entries += cat.update(clients: [cid]).entries
        #expect(Self.events(try presence.received(both.encode(), now: 5)) == [
            PresenceEvent(.unwatched(Self.bob), isMine: false), PresenceEvent(.unwatched(cid), isMine: false),
        ])
        #expect(presence.others == [Self.ann: ["name": "ann", "cursor": 3]])
    }

    @Test func anEmptyAnswerStillInitializes() throws {
        var presence = Self.connected()
        let answer = Awareness(localClientID: 1 << 40, now: 0).encodeUpdate(clients: [])
        #expect(Self.events(try presence.received(answer, now: 1)) == [PresenceEvent(.initialized(others: [:]), isMine: false)])
    }

    @Test func aLostConnectionUnwatchesTheOthersAndTheNextConnectInitializesAgain() throws {
        var presence = Self.connected()
        _ = try presence.set(["name": "me"], now: 0)
        var update = Self.peer(Self.ann, "a").update(clients: [Self.ann])
        update.entries += Self.peer(Self.bob, "b").update(clients: [Self.bob]).entries
        _ = try presence.received(update.encode(), now: 1)

        let lost = presence.connectionLost(now: 2)
        #expect(Self.events(lost) == [
            PresenceEvent(.unwatched(Self.ann), isMine: false), PresenceEvent(.unwatched(Self.bob), isMine: false),
        ])
        #expect(try Self.sentEntries(lost).isEmpty)
        #expect(presence.others.isEmpty)
        #expect(presence.myPresence == ["name": "me"])
        #expect(presence.nextDeadline == nil)

        _ = presence.connectionReady(now: 3)
        // The same peers come back with the clocks they had: still taken, as a fresh set.
        #expect(Self.events(try presence.received(update.encode(), now: 4)) == [
            PresenceEvent(.initialized(others: [Self.ann: "a", Self.bob: "b"]), isMine: false),
        ])
    }

    // MARK: Time

    @Test func othersExpireAfterThirtySecondsWithoutRenewal() throws {
        var presence = Self.connected()
        var ann = Self.peer(Self.ann, "a")
        _ = try presence.received(ann.encodeUpdate(clients: [Self.ann]), now: 1_000)
        #expect(presence.nextDeadline == 1_000 + Awareness.outdatedTimeout)
        #expect(presence.tick(now: 30_999).isEmpty)

        // A renewal (same state, new clock) pushes the timeout back.
        ann.setLocalState("a", now: 20_000)
        _ = try presence.received(ann.encodeUpdate(clients: [Self.ann]), now: 20_000)
        #expect(presence.nextDeadline == 50_000)
        #expect(presence.tick(now: 31_000).isEmpty)
        #expect(Self.events(presence.tick(now: 50_000)) == [PresenceEvent(.unwatched(Self.ann), isMine: false)])
        #expect(presence.others.isEmpty)
        #expect(presence.nextDeadline == nil)
    }

    @Test func ourStateIsRenewedEveryFifteenSecondsWhileConnected() throws {
        var presence = Self.connected()
        let clock = try #require(try Self.sentEntries(try presence.set(["name": "ann"], now: 0)).first?.clock)
        #expect(presence.nextDeadline == Awareness.renewInterval)
        #expect(presence.tick(now: 14_999).isEmpty)

        let renewal = presence.tick(now: 15_000)
        let entries = try Self.sentEntries(renewal)
        #expect(entries.map(\.clock) == [clock + 1])
        #expect(entries.map(\.state) == [["name": "ann"]])
        #expect(Self.events(renewal).isEmpty)
        #expect(presence.nextDeadline == 30_000)

        // Offline: no renewal is due (it is sent on the next connect).
        _ = presence.connectionLost(now: 16_000)
        #expect(presence.tick(now: 60_000).isEmpty)
    }

    // MARK: Bad or hostile input

    @Test(arguments: [
        [UInt8](),  // nothing
        [1, 7],  // truncated entry
        [1, 7, 1, 3] + Array("{no".utf8),  // state not JSON
        [1, 7, 1, 9] + Array("undefined".utf8),  // JSON.parse would throw
        [1, 7, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 4] + Array("null".utf8),  // clock above 2^53
        [1, 7, 1, 4] + Array("null".utf8) + [0],  // trailing byte
    ])
    func malformedAwarenessThrowsAndChangesNothing(bytes: [UInt8]) throws {
        var presence = Self.connected()
        _ = try presence.set(["name": "me"], now: 0)
        _ = try presence.received(Self.peer(Self.ann, "a").encodeUpdate(clients: [Self.ann]), now: 1)
        let (states, meta, awaits) = (presence.awareness.states, presence.awareness.meta, presence.awaitsInitialState)

        let error = try #require(throws: AccordError.self) { try presence.received(bytes, now: 2) }
        #expect(error.code == .malformedMessage)
        #expect(presence.awareness.states == states)
        #expect(presence.awareness.meta == meta)
        #expect(presence.awaitsInitialState == awaits)
    }

    @Test func aPeerDeclaringUsGoneIsAnsweredWithOurState() throws {
        var presence = Self.connected()
        let clock = try #require(try Self.sentEntries(try presence.set(["name": "me"], now: 0)).first?.clock)
        _ = try presence.received(AwarenessUpdate([]).encode(), now: 0)  // initialized

        let gone = AwarenessUpdate([.init(clientID: Self.me, clock: clock, state: nil)]).encode()
        let actions = try presence.received(gone, now: 1)
        let entries = try Self.sentEntries(actions)
        #expect(entries.count == 1 && entries[0].state == ["name": "me"] && entries[0].clock > clock)
        #expect(Self.events(actions).isEmpty)
        #expect(presence.myPresence == ["name": "me"])
    }

    @Test func aPeerClaimingOurClientIDDoesNotReplaceOurState() throws {
        var presence = Self.connected()
        _ = try presence.set(["name": "me"], now: 0)
        _ = try presence.received(AwarenessUpdate([]).encode(), now: 0)  // initialized

        let impostor = AwarenessUpdate([.init(clientID: Self.me, clock: 500, state: ["name": "impostor"])]).encode()
        let actions = try presence.received(impostor, now: 1)
        #expect(presence.myPresence == ["name": "me"])
        let entries = try Self.sentEntries(actions)
        #expect(entries.count == 1 && entries[0].state == ["name": "me"] && entries[0].clock > 500)
        #expect(Self.events(actions).isEmpty)
        #expect(presence.others.isEmpty)
    }

    @Test func filtersSplitMineFromTheOthers() {
        let mine = PresenceEvent(.watched(Self.me, "x"), isMine: true)
        let theirs = PresenceEvent(.unwatched(Self.ann), isMine: false)
        let initialized = PresenceEvent(.initialized(others: [:]), isMine: false)
        #expect([mine, theirs, initialized].filter(PresenceFilter.mine.admits) == [mine])
        #expect([mine, theirs, initialized].filter(PresenceFilter.others.admits) == [theirs, initialized])
        #expect([mine, theirs, initialized].filter(PresenceFilter.all.admits) == [mine, theirs, initialized])
    }
}
