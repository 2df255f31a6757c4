import Testing
@testable import AccordCRDT

@Suite struct AwarenessTests {
    let me: ClientID = 1
    let peer: ClientID = 42

    func entry(_ client: ClientID, _ clock: UInt64, _ state: AnyValue?) -> AwarenessUpdate {
        AwarenessUpdate([.init(clientID: client, clock: clock, state: state)])
    }

    @Test func startsPresentWithAnEmptyObjectAtClockZero() {
        let awareness = Awareness(localClientID: me, now: 0)
        #expect(awareness.localState == .object(OrderedObject()))
        #expect(awareness.localClock == 0)
        #expect(awareness.meta[me] == Awareness.Meta(clock: 0, lastUpdated: 0))
        #expect(Awareness.outdatedTimeout == 30_000)
        #expect(Awareness.renewInterval == 15_000)
    }

    @Test func setLocalStateAdvancesTheClockAndReportsChangeVersusUpdate() {
        var awareness = Awareness(localClientID: me, now: 0)
        let first = awareness.setLocalState(["name": "ann"], now: 10)
        #expect(first == AwarenessChange(updated: [me], changed: [me]))
        #expect(awareness.localClock == 1)
        #expect(awareness.meta[me]?.lastUpdated == 10)

        // Same content: Yjs emits `update` but not `change`.
        let same = awareness.setLocalState(["name": "ann"], now: 20)
        #expect(same.updated == [me] && same.changed.isEmpty)
        #expect(same.isUpdate && !same.isChange)
        #expect(awareness.localClock == 2)

        let leave = awareness.setLocalState(nil, now: 30)
        #expect(leave == AwarenessChange(removed: [me]))
        #expect(awareness.localState == nil && awareness.localClock == 3)
        #expect(awareness.encodeUpdate(clients: [me]) == AwarenessUpdate([.init(clientID: me, clock: 3, state: nil)]).encode())

        let back = awareness.setLocalState(["name": "ann"], now: 40)
        #expect(back == AwarenessChange(added: [me]))
        #expect(awareness.localClock == 4)
        // JSON null is leaving too.
        #expect(awareness.setLocalState(.null, now: 50).removed == [me])
    }

    @Test func remoteEntriesFollowTheClockRule() {
        var awareness = Awareness(localClientID: me, now: 0)
        #expect(awareness.apply(entry(peer, 1, ["x": 1]), now: 5) == AwarenessChange(added: [peer]))
        #expect(awareness.states[peer] == ["x": 1])
        #expect(awareness.meta[peer] == Awareness.Meta(clock: 1, lastUpdated: 5))

        // Stale or equal clocks with a state are ignored, and do not refresh lastUpdated.
        #expect(awareness.apply(entry(peer, 1, ["x": 2]), now: 6).isEmpty)
        #expect(awareness.apply(entry(peer, 0, ["x": 3]), now: 7).isEmpty)
        #expect(awareness.states[peer] == ["x": 1] && awareness.meta[peer]?.lastUpdated == 5)

        // A newer clock with the same content is an update, not a change.
        let refresh = awareness.apply(entry(peer, 2, ["x": 1]), now: 8)
        #expect(refresh == AwarenessChange(updated: [peer]))
        #expect(refresh.isUpdate && !refresh.isChange)

        let modified = awareness.apply(entry(peer, 3, ["x": 9]), now: 9)
        #expect(modified == AwarenessChange(updated: [peer], changed: [peer]))

        // Equal clock with null while present removes (another peer saw it time out).
        #expect(awareness.apply(entry(peer, 3, nil), now: 10) == AwarenessChange(removed: [peer]))
        #expect(awareness.states[peer] == nil)
        #expect(awareness.meta[peer]?.clock == 3)  // remembered, so stale entries stay out
        // Equal clock null again: the client is no longer present, so it is ignored.
        #expect(awareness.apply(entry(peer, 3, nil), now: 11).isEmpty)
        #expect(awareness.apply(entry(peer, 2, ["x": 1]), now: 12).isEmpty)
    }

    @Test func firstEverClockZeroIsIgnoredAsInYjs() {
        var awareness = Awareness(localClientID: me, now: 0)
        #expect(awareness.apply(entry(peer, 0, ["x": 1]), now: 1).isEmpty)
        #expect(awareness.apply(entry(peer, 0, nil), now: 1).isEmpty)
        #expect(awareness.states[peer] == nil && awareness.meta[peer] == nil)
        // Clock 1 is the first one a new client can be seen with.
        #expect(awareness.apply(entry(peer, 1, ["x": 1]), now: 2).added == [peer])
    }

    @Test func nullForAnUnknownClientIsRecordedSilently() {
        var awareness = Awareness(localClientID: me, now: 0)
        #expect(awareness.apply(entry(peer, 5, nil), now: 1).isEmpty)
        #expect(awareness.meta[peer]?.clock == 5)
        // Its old state arriving late cannot resurrect it.
        #expect(awareness.apply(entry(peer, 4, ["late": true]), now: 2).isEmpty)
        #expect(awareness.states[peer] == nil)
    }

    @Test func returningClientIsReportedAsUpdatedLikeYjs() {
        var awareness = Awareness(localClientID: me, now: 0)
        _ = awareness.apply(entry(peer, 1, ["x": 1]), now: 0)
        _ = awareness.apply(entry(peer, 2, nil), now: 1)
        let back = awareness.apply(entry(peer, 3, ["x": 1]), now: 2)
        #expect(back == AwarenessChange(updated: [peer], changed: [peer]))
        #expect(awareness.states[peer] == ["x": 1])
        // A newer null for a client already gone is still reported as removed (Yjs does).
        _ = awareness.apply(entry(peer, 4, nil), now: 3)
        #expect(awareness.apply(entry(peer, 5, nil), now: 4) == AwarenessChange(removed: [peer]))
    }

    @Test func peerDeclaringUsGoneMakesUsReassert() throws {
        var awareness = Awareness(localClientID: me, now: 0)
        awareness.setLocalState(["name": "me"], now: 0)  // clock 1
        let change = awareness.apply(entry(me, 1, nil), now: 100)
        #expect(change.localStateReasserted)
        #expect(change.removed == [me])  // as Yjs reports it
        #expect(awareness.localState == ["name": "me"])
        #expect(awareness.localClock == 2)
        let rebroadcast = try AwarenessUpdate.decode(awareness.encodeUpdate(clients: [me]))
        #expect(rebroadcast.entries == [.init(clientID: me, clock: 2, state: ["name": "me"])])

        // A newer null clock: we jump past it.
        let later = awareness.apply(entry(me, 10, nil), now: 200)
        #expect(later.localStateReasserted && awareness.localClock == 11)

        // Once we have left ourselves, a null for us is simply accepted.
        awareness.setLocalState(nil, now: 300)  // clock 12
        let afterLeave = awareness.apply(entry(me, 13, nil), now: 400)
        #expect(!afterLeave.localStateReasserted)
        #expect(awareness.localState == nil && awareness.localClock == 13)
    }

    @Test func remoteStateForOurIDOverridesOursLikeYjs() {
        // Two peers sharing a client id is a misconfiguration; Yjs lets the newer clock win.
        var awareness = Awareness(localClientID: me, now: 0)
        let change = awareness.apply(entry(me, 5, ["other": true]), now: 1)
        #expect(change.updated == [me])
        #expect(awareness.localState == ["other": true] && awareness.localClock == 5)
    }

    @Test func goldenUpdatesApplyAndReEncode() throws {
        var awareness = Awareness(localClientID: me, now: 0)
        let update = ProtocolFixtures.awarenessBytes("update_hex")
        #expect(try awareness.apply(encoded: update, now: 1) == AwarenessChange(added: [42]))
        #expect(awareness.encodeUpdate(clients: [42]) == update)

        let removal = ProtocolFixtures.awarenessBytes("removal_update_hex")
        #expect(try awareness.apply(encoded: removal, now: 2) == AwarenessChange(removed: [42]))
        #expect(awareness.encodeUpdate(clients: [42]) == removal)

        let multi = ProtocolFixtures.awarenessBytes("multi_client_update_hex")
        #expect(try awareness.apply(encoded: multi, now: 3) == AwarenessChange(added: [7, 3_000_000_000]))
        #expect(awareness.encodeUpdate(clients: [7, 3_000_000_000]) == multi)
    }

    @Test func malformedEncodedUpdateChangesNothing() {
        var awareness = Awareness(localClientID: me, now: 0)
        // Entry 1 is valid, entry 2 is truncated: nothing may be applied.
        var bytes = AwarenessUpdate([.init(clientID: peer, clock: 1, state: ["x": 1])]).encode()
        bytes[0] = 2
        bytes += [0x07, 0x01]
        let error = #expect(throws: AccordError.self) { try awareness.apply(encoded: bytes, now: 1) }
        #expect(error?.code == .malformedMessage)
        #expect(awareness.states.count == 1 && awareness.meta[peer] == nil)
    }

    @Test func encodeSkipsUnknownClientsAndListsAllStatesInOrder() throws {
        var awareness = Awareness(localClientID: 5, now: 0)
        _ = awareness.apply(AwarenessUpdate([
            .init(clientID: 9, clock: 1, state: ["n": 9]),
            .init(clientID: 2, clock: 4, state: ["n": 2]),
            .init(clientID: 7, clock: 3, state: nil),
        ]), now: 0)
        #expect(awareness.update(clients: [1234, 9]).entries.map(\.clientID) == [9])
        let all = try AwarenessUpdate.decode(awareness.encodeAllStates())
        #expect(all.entries.map(\.clientID) == [2, 5, 9])
        #expect(all.entries.map(\.clock) == [4, 0, 1])
    }

    @Test func removeStatesIsLocalAndBumpsOurClock() {
        var awareness = Awareness(localClientID: me, now: 0)
        _ = awareness.apply(entry(peer, 1, ["x": 1]), now: 0)
        let change = awareness.removeStates(clients: [peer, 999, me], now: 50)
        #expect(change == AwarenessChange(removed: [peer, me]))
        #expect(awareness.states.isEmpty)
        #expect(awareness.meta[peer]?.clock == 1)
        #expect(awareness.meta[me] == Awareness.Meta(clock: 1, lastUpdated: 50))
        #expect(awareness.removeStates(clients: [peer], now: 60).isEmpty)
    }

    @Test func timeoutsRenewOurStateAndDropSilentPeers() {
        var awareness = Awareness(localClientID: me, now: 0)
        _ = awareness.apply(entry(peer, 1, ["x": 1]), now: 0)
        _ = awareness.apply(entry(7, 1, ["x": 7]), now: 10_000)

        var check = awareness.checkTimeouts(now: 14_999)
        #expect(check.change.isEmpty && !check.renewedLocal)

        check = awareness.checkTimeouts(now: 15_000)
        #expect(check.renewedLocal && check.change.isEmpty)
        #expect(awareness.localClock == 1 && awareness.meta[me]?.lastUpdated == 15_000)

        check = awareness.checkTimeouts(now: 29_999)
        #expect(check.change.isEmpty && !check.renewedLocal)

        check = awareness.checkTimeouts(now: 30_000)
        #expect(check.change == AwarenessChange(removed: [peer]))
        #expect(check.renewedLocal)  // 15 s since the last renewal
        #expect(awareness.states[peer] == nil && awareness.states[7] != nil)
        #expect(awareness.localState != nil)  // our own state never times out

        check = awareness.checkTimeouts(now: 40_000)
        #expect(check.change == AwarenessChange(removed: [7]))

        // The timed-out peer's old clock is remembered; its next renewal brings it back.
        #expect(awareness.apply(entry(peer, 1, ["x": 1]), now: 41_000).isEmpty)
        #expect(awareness.apply(entry(peer, 2, ["x": 1]), now: 41_000).updated == [peer])
    }

    @Test func timeoutsDoNotRenewAfterLeavingAndTolerateClockSkew() {
        var awareness = Awareness(localClientID: me, now: 1_000)
        awareness.setLocalState(nil, now: 1_000)
        #expect(!awareness.checkTimeouts(now: 100_000).renewedLocal)
        #expect(awareness.localClock == 1)

        // Time going backwards is treated as no time passing.
        var skewed = Awareness(localClientID: me, now: 50_000)
        _ = skewed.apply(entry(peer, 1, ["x": 1]), now: 50_000)
        let check = skewed.checkTimeouts(now: 0)
        #expect(check.change.isEmpty && !check.renewedLocal)
    }

    @Test func clockBumpsStayReadableByJavaScript() {
        var awareness = Awareness(localClientID: me, now: 0)
        let change = awareness.apply(entry(me, AwarenessUpdate.maxClock, nil), now: 1)
        #expect(change.localStateReasserted)
        #expect(awareness.localClock == AwarenessUpdate.maxClock)
        // Entries built in code beyond the limit are ignored rather than stored.
        #expect(awareness.apply(entry(peer, AwarenessUpdate.maxClock + 1, ["x": 1]), now: 1).isEmpty)
    }
}
