import Testing
import AccordCRDT
import AccordStore
@testable import AccordServer

/// Who owns an awareness client id in a room, driven as real y-protocols clients
/// behave: y-websocket sends back every update it receives, and reconnects with the
/// same client id and the clock it had.
@Suite struct RoomAwarenessTests {
    private func makeRoom() -> Room {
        Room(id: "notes", doc: Doc(clientID: 1), storedBytes: 0, maxDocumentBytes: 1 << 20, now: 0)
    }

    private func update(_ entries: [AwarenessUpdate.Entry]) -> ProtocolFrame { .awareness(AwarenessUpdate(entries).encode()) }
    private func entry(_ id: ClientID, _ clock: UInt64, _ state: AnyValue?) -> AwarenessUpdate.Entry {
        .init(clientID: id, clock: clock, state: state)
    }

    /// A room with ada (1), bob (2) and cy (3); ada's client 77 is at clock 1.
    private func roomWithAda() -> Room {
        let room = makeRoom()
        for connection: ConnectionID in [1, 2, 3] { _ = room.join(connection, user: "u\(connection)", canWrite: true) }
        _ = room.receive(update([entry(77, 1, .string("ada"))]), from: 1, now: 10)
        return room
    }

    @Test func anEchoOfAnotherConnectionsEntryIsDroppedSilently() throws {
        let room = roomWithAda()
        #expect(room.awarenessOwner(of: 77) == 1)
        // Bob's y-websocket sends back what the server relayed to it: same clock, same state.
        #expect(room.receive(update([entry(77, 1, .string("ada"))]), from: 2, now: 20).isEmpty)
        // Or an older clock, or its own timeout of ada (same clock, null).
        #expect(room.receive(update([entry(77, 0, .string("old"))]), from: 2, now: 20).isEmpty)
        #expect(room.receive(update([entry(77, 1, nil)]), from: 3, now: 20).isEmpty)
        #expect(room.awareness.states[77] == .string("ada"))
        #expect(room.awarenessOwner(of: 77) == 1)
        // Mixed in with its own entry, the echo is dropped and its own entry relayed.
        let mixed = room.receive(update([entry(77, 1, .string("ada")), entry(88, 1, .string("bob"))]), from: 2, now: 30)
        let relayed = room.awareness.encodeUpdate(clients: [88])
        #expect(mixed == [.send(1, .awareness(relayed)), .send(3, .awareness(relayed))])
        #expect(room.awarenessOwner(of: 88) == 2)
    }

    @Test func echoesOfARemovalNeverMakeTheEchoerAnOwner() throws {
        let room = roomWithAda()
        let removal = room.leave(1, now: 20)
        #expect(removal == [2, 3].map { .send($0, .awareness(AwarenessUpdate([entry(77, 1, nil)]).encode())) })
        #expect(room.awarenessOwner(of: 77) == nil)
        // Both remaining clients send the removal back: nothing changes, nobody owns 77.
        #expect(room.receive(update([entry(77, 1, nil)]), from: 2, now: 21).isEmpty)
        #expect(room.receive(update([entry(77, 1, nil)]), from: 3, now: 21).isEmpty)
        #expect(room.awarenessOwner(of: 77) == nil)
        // So ada, back on a new connection with a new state, is accepted and relayed.
        _ = room.join(4, user: "ada", canWrite: true)
        let back = room.receive(update([entry(77, 2, .string("ada again"))]), from: 4, now: 30)
        #expect(back.count == 2)
        #expect(room.awareness.states[77] == .string("ada again"))
        #expect(room.awarenessOwner(of: 77) == 4)
    }

    @Test func aTakeoverWithANewerClockIsRefusedAndChangesNothing() throws {
        let room = roomWithAda()
        for takeover in [entry(77, 2, .string("mallory")), entry(77, 5, nil)] {
            let actions = room.receive(update([takeover]), from: 2, now: 20)
            guard case .error(2, let error)? = actions.first, actions.count == 1 else {
                Issue.record("takeover not refused: \(actions)"); continue
            }
            #expect(error.code == .awarenessClientTaken)
        }
        #expect(room.awareness.states[77] == .string("ada"))
        #expect(room.awareness.meta[77]?.clock == 1)
        #expect(room.awarenessOwner(of: 77) == 1)
        // The owner itself moves on as before.
        #expect(room.receive(update([entry(77, 2, .string("ada moved"))]), from: 1, now: 30).count == 2)
    }

    @Test func aClientReconnectingWithItsOldClockIsAskedToReannounce() throws {
        let room = roomWithAda()
        _ = room.leave(1, now: 20)
        _ = room.join(4, user: "ada", canWrite: true)
        // y-websocket re-sends its state under the clock it had: stale for the server
        // (and for every peer that saw the removal). The sender is told it was removed.
        let actions = room.receive(update([entry(77, 1, .string("ada"))]), from: 4, now: 30)
        #expect(actions == [.send(4, .awareness(AwarenessUpdate([entry(77, 1, nil)]).encode()))])
        #expect(room.awarenessOwner(of: 77) == nil)
        // A y-protocols client answers a removal of its live state with the state
        // under a newer clock, which the server takes from the new connection.
        var client = Awareness(localClientID: 77, now: 0)
        client.setLocalState(.string("ada"), now: 0)  // clock 1
        guard case .send(4, .awareness(let answer)) = actions[0] else { return }
        let change = try client.apply(encoded: answer, now: 31)
        #expect(change.localStateReasserted)
        let reannounced = room.receive(.awareness(client.encodeUpdate(clients: [77])), from: 4, now: 32)
        #expect(reannounced == [2, 3].map { .send($0, .awareness(room.awareness.encodeUpdate(clients: [77]))) })
        #expect(room.awareness.states[77] == .string("ada"))
        #expect(room.awarenessOwner(of: 77) == 4)
    }

    @Test func aReturningClientIDAsksTheOtherOwnersToReannounce() throws {
        let room = roomWithAda()
        _ = room.receive(update([entry(88, 4, .string("bob"))]), from: 2, now: 11)
        _ = room.receive(update([entry(99, 1, .string("cy"))]), from: 3, now: 12)
        _ = room.leave(3, now: 20)
        _ = room.join(4, user: "cy", canWrite: true)
        // Cy's client still holds ada's and bob's clocks from before and would ignore
        // their states: each owner is sent the removal of its own entry, which it answers
        // with its state under a newer clock.
        let actions = room.receive(update([entry(99, 1, .string("cy"))]), from: 4, now: 30)
        #expect(actions == [
            .send(4, .awareness(AwarenessUpdate([entry(99, 1, nil)]).encode())),
            .send(1, .awareness(AwarenessUpdate([entry(77, 1, nil)]).encode())),
            .send(2, .awareness(AwarenessUpdate([entry(88, 4, nil)]).encode())),
        ])
        // The owners' states are untouched on the server until they re-announce.
        #expect(room.awareness.states[77] == .string("ada") && room.awareness.states[88] == .string("bob"))
        // An ordinary update nudges nobody.
        #expect(room.receive(update([entry(77, 2, .string("ada 2"))]), from: 1, now: 31).count == 2)
    }

    @Test func anIDIsFreeOnceItsOwnerLeavesRemovesItOrGoesSilent() throws {
        let room = roomWithAda()
        // The owner's own removal frees the id.
        _ = room.receive(update([entry(77, 2, nil)]), from: 1, now: 20)
        #expect(room.awarenessOwner(of: 77) == nil)
        #expect(room.receive(update([entry(77, 3, .string("bob"))]), from: 2, now: 21).count == 2)
        #expect(room.awarenessOwner(of: 77) == 2)
        // Expiry frees it too.
        _ = room.expireAwareness(now: 21 + Awareness.outdatedTimeout)
        #expect(room.awarenessOwner(of: 77) == nil)
        #expect(room.receive(update([entry(77, 4, .string("cy"))]), from: 3, now: 40_000).count == 2)
        #expect(room.awarenessOwner(of: 77) == 3)
        // Leaving removes the owner's entries for everyone and frees them.
        let leaving = room.leave(3, now: 40_001)
        #expect(leaving == [1, 2].map { .send($0, .awareness(AwarenessUpdate([entry(77, 4, nil)]).encode())) })
        #expect(room.awarenessOwner(of: 77) == nil)
        #expect(room.awareness.states[77] == nil)
    }
}
