import Testing
import AccordCRDT
import AccordStore
@testable import AccordServer

/// The room's rules, driven without sockets or a store.
@Suite struct RoomTests {
    private let id: DocumentID = "notes"

    private func makeRoom(maxBytes: Int = 1 << 20) -> Room {
        Room(id: id, doc: Doc(clientID: 1), storedBytes: 0, maxDocumentBytes: maxBytes, now: 0)
    }

    /// An update inserting `text` at the start of root text "t", from a fresh client.
    private func edit(_ text: String, client: ClientID) throws -> [UInt8] {
        let doc = Doc(clientID: client)
        var update: [UInt8] = []
        let subscription = doc.onUpdate { bytes, _ in update = bytes }
        try doc.getText("t").insert(0, text)
        subscription.cancel()
        return update
    }

    private func text(of room: Room) throws -> String { try room.doc.getText("t").string }

    @Test func joinSendsStepOneAndPresentAwareness() throws {
        let room = makeRoom()
        let first = room.join(1, user: "ada", canWrite: true)
        #expect(first == [.send(1, .sync(.step1(stateVector: room.doc.encodeStateVector())))])
        let state = AwarenessUpdate([.init(clientID: 77, clock: 1, state: .object(["name": .string("ada")]))]).encode()
        _ = room.receive(.awareness(state), from: 1, now: 10)
        let second = room.join(2, user: "bob", canWrite: true)
        #expect(second.count == 2)
        #expect(second.last == .send(2, .awareness(room.awareness.encodeAllStates())))
    }

    @Test func writerUpdateIsAppliedPersistedAndFannedOut() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: true)
        _ = room.join(2, user: "bob", canWrite: true)
        _ = room.join(3, user: "cy", canWrite: false)
        let update = try edit("hello", client: 9)
        let actions = room.receive(.sync(.update(update)), from: 1, now: 0)
        #expect(try text(of: room) == "hello")
        #expect(actions.first == .persist(update: update, from: 1, ack: nil))
        let receivers = actions.compactMap { action -> ConnectionID? in
            if case .send(let c, .sync(.update)) = action { c } else { nil }
        }
        #expect(receivers == [2, 3])
        // What the others get brings a fresh replica to the same text.
        guard case .send(_, .sync(.update(let relayed))) = actions[1] else { Issue.record("no relay"); return }
        let replica = Doc(clientID: 50)
        try replica.applyUpdate(relayed)
        #expect(try replica.getText("t").string == "hello")
    }

    @Test func duplicatesAndEmptyUpdatesAreNotStoredAgain() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: true)
        _ = room.join(2, user: "bob", canWrite: true)
        let update = try edit("once", client: 9)
        #expect(room.receive(.sync(.update(update)), from: 1, now: 0).count == 2)
        #expect(room.receive(.sync(.update(update)), from: 2, now: 0).isEmpty)
        #expect(room.receive(.sync(.step2(update: [0, 0])), from: 2, now: 0).isEmpty)
        // With an ack requested it is stored, so the ack waits for the earlier updates.
        let acked = try AccordMessage.update(documentID: "notes", sequence: 1, bytes: update).frame()
        #expect(room.receive(acked, from: 2, now: 0) == [.persist(update: update, from: 2, ack: PendingAck(connection: 2, sequence: 1))])
        // An update whose predecessor is missing is stored (it is pending), not relayed yet.
        let doc = Doc(clientID: 30)
        var updates: [[UInt8]] = []
        let subscription = doc.onUpdate { bytes, _ in updates.append(bytes) }
        try doc.getText("t").insert(0, "a")
        try doc.getText("t").insert(1, "b")
        subscription.cancel()
        #expect(room.receive(.sync(.update(updates[1])), from: 1, now: 0) == [.persist(update: updates[1], from: 1, ack: nil)])
        #expect(try text(of: room) == "once")
    }

    @Test func stepOneIsAnsweredWithWhatTheClientLacks() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: true)
        _ = room.receive(.sync(.update(try edit("abc", client: 9))), from: 1, now: 0)
        _ = room.join(2, user: "bob", canWrite: false)
        let actions = room.receive(.sync(.step1(stateVector: Doc().encodeStateVector())), from: 2, now: 0)
        guard case .send(2, .sync(.step2(let missing))) = actions.first else { Issue.record("no step 2"); return }
        let replica = Doc(clientID: 50)
        try replica.applyUpdate(missing)
        #expect(try replica.getText("t").string == "abc")
    }

    /// Clients with nothing share one encoding of the document until it changes; every
    /// change (a member's update, a delete, a server edit) is in the next answer.
    @Test func emptyStepOnesShareTheWholeDocumentUntilItChanges() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: true)
        _ = room.receive(.sync(.update(try edit("abc", client: 9))), from: 1, now: 0)
        func answer(_ connection: ConnectionID) throws -> String {
            _ = room.join(connection, user: "u\(connection)", canWrite: false)
            let actions = room.receive(.sync(.step1(stateVector: Doc().encodeStateVector())), from: connection, now: 0)
            guard case .send(_, .sync(.step2(let missing))) = actions.first else { throw AccordError(.internalError, "no step 2") }
            #expect(missing == room.doc.encodeStateAsUpdate(), "the answer is the whole document as it is now")
            let replica = Doc(clientID: 50)
            try replica.applyUpdate(missing)
            return try replica.getText("t").string
        }
        #expect(try answer(2) == "abc")
        #expect(try answer(3) == "abc")
        _ = room.receive(.sync(.update(try edit("x", client: 10))), from: 1, now: 0)
        #expect(try answer(4) == text(of: room) && text(of: room).count == 4)
        // A delete changes no state vector, and still reaches the next answer.
        let deleter = Doc(clientID: 11)
        try deleter.applyUpdate(room.doc.encodeStateAsUpdate())
        var deletion: [UInt8] = []
        let subscription = deleter.onUpdate { bytes, _ in deletion = bytes }
        try deleter.getText("t").delete(0, 2)
        subscription.cancel()
        _ = room.receive(.sync(.update(deletion)), from: 1, now: 0)
        #expect(try answer(5) == text(of: room) && text(of: room).count == 2)
        _ = try room.serverEdit { doc throws(AccordError) in try doc.getText("t").insert(0, "S") }
        #expect(try answer(6) == text(of: room) && text(of: room).hasPrefix("S") && text(of: room).count == 3)
    }

    @Test func readerWritesAreRefusedAndLeaveTheDocumentUnchanged() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: true)
        _ = room.receive(.sync(.update(try edit("base", client: 9))), from: 1, now: 0)
        _ = room.join(2, user: "reader", canWrite: false)
        let before = room.doc.encodeStateAsUpdate()
        for frame in [ProtocolFrame.sync(.update(try edit("x", client: 10))), .sync(.step2(update: try edit("y", client: 11))),
                      try AccordMessage.update(documentID: "notes", sequence: 1, bytes: try edit("z", client: 12)).frame()] {
            let actions = room.receive(frame, from: 2, now: 0)
            #expect(actions.count == 1)
            guard case .error(2, let error) = actions.first else { Issue.record("no error for \(frame)"); continue }
            #expect(error.code == .permissionDenied)
        }
        #expect(room.doc.encodeStateAsUpdate() == before)
        // The empty step 2 every stock client answers with is not worth an error.
        #expect(room.receive(.sync(.step2(update: [0, 0])), from: 2, now: 0).isEmpty)
        // Write access granted later takes effect on the next message.
        room.setCanWrite(2, true)
        #expect(room.receive(.sync(.update(try edit("x", client: 10))), from: 2, now: 0).first.map {
            if case .persist = $0 { true } else { false }
        } == true)
    }

    @Test func aReadersStepTwoThatBringsNothingNewIsTakenWithoutAnError() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: true)
        let writer = Doc(clientID: 9)
        var updates: [[UInt8]] = []
        let subscription = writer.onUpdate { bytes, _ in updates.append(bytes) }
        try writer.getText("t").insert(0, "hello world")
        try writer.getText("t").delete(0, 6)
        subscription.cancel()
        for update in updates { _ = room.receive(.sync(.update(update)), from: 1, now: 0) }
        _ = room.join(2, user: "reader", canWrite: false)
        let reader = Doc(clientID: 20)
        try reader.applyUpdate(room.doc.encodeStateAsUpdate())
        // The reader's answer to our step 1 carries its delete set: not empty, nothing new.
        let answer = try reader.encodeStateAsUpdate(from: room.doc.encodeStateVector())
        #expect(answer != [0, 0])
        let before = room.doc.encodeStateAsUpdate()
        #expect(room.receive(.sync(.step2(update: answer)), from: 2, now: 0).isEmpty)
        // A deletion of its own is a write, refused as before.
        try reader.getText("t").delete(0, 1)
        let deletion = try reader.encodeStateAsUpdate(from: room.doc.encodeStateVector())
        guard case .error(2, let error)? = room.receive(.sync(.step2(update: deletion)), from: 2, now: 0).first else {
            Issue.record("a reader's deletion was not refused")
            return
        }
        #expect(error.code == .permissionDenied)
        #expect(room.doc.encodeStateAsUpdate() == before)
    }

    @Test func aLaterStepOneIsAlsoAnsweredWithTheServersStepOne() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: true)
        _ = room.receive(.sync(.update(try edit("abc", client: 9))), from: 1, now: 0)
        let empty = Doc().encodeStateVector()
        // The first step 1 follows the join, which sent ours already.
        let first = room.receive(.sync(.step1(stateVector: empty)), from: 1, now: 0)
        #expect(first.count == 1)
        let second = room.receive(.sync(.step1(stateVector: empty)), from: 1, now: 0)
        #expect(second.count == 2)
        guard case .send(1, .sync(.step2)) = second.first else { Issue.record("no step 2 first"); return }
        #expect(second.last == .send(1, .sync(.step1(stateVector: room.doc.encodeStateVector()))))
        // Another connection's first step 1 is its own first.
        _ = room.join(2, user: "bob", canWrite: true)
        #expect(room.receive(.sync(.step1(stateVector: empty)), from: 2, now: 0).count == 1)
    }

    @Test func oversizedAndMalformedUpdatesAreRefusedUnchanged() throws {
        let room = makeRoom(maxBytes: 40)
        _ = room.join(1, user: "ada", canWrite: true)
        let before = room.doc.encodeStateAsUpdate()
        let big = try edit(String(repeating: "x", count: 100), client: 9)
        guard case .error(1, let tooLarge) = room.receive(.sync(.update(big)), from: 1, now: 0).first else {
            Issue.record("no size error"); return
        }
        #expect(tooLarge.code == .documentTooLarge)
        guard case .error(1, let malformed) = room.receive(.sync(.update([1, 2, 3, 200, 9])), from: 1, now: 0).first else {
            Issue.record("no malformed error"); return
        }
        #expect(malformed.code == .malformedUpdate)
        #expect(room.doc.encodeStateAsUpdate() == before)
        #expect(room.documentBytes == 0)
    }

    @Test func acksWaitForDurabilityAndAreCumulative() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: true)
        _ = room.join(2, user: "bob", canWrite: true)
        for (sequence, client) in [(5, 9), (6, 10)] as [(UInt64, ClientID)] {
            let message = AccordMessage.update(documentID: "notes", sequence: sequence, bytes: try edit("x", client: client))
            let actions = room.receive(try message.frame(), from: 1, now: 0)
            guard case .persist(_, 1, let ack) = actions.first else { Issue.record("not persisted"); return }
            #expect(ack == PendingAck(connection: 1, sequence: sequence))
            room.persisted(storeSequence: UInt64(sequence) - 4, ack: ack, now: 100)
        }
        room.persisted(storeSequence: 3, ack: PendingAck(connection: 2, sequence: 1), now: 100)
        #expect(!room.isIdle)
        let first = room.durable(through: 1, now: 103)
        #expect(first.actions == [.ack(1, through: 5)])
        #expect(first.latencies == [3])
        _ = room.leave(2, now: 104)
        let rest = room.durable(through: 3, now: 110)
        #expect(rest.actions == [.ack(1, through: 6)])  // nothing for the connection that left
        #expect(rest.latencies == [10, 10])
    }

    @Test func awarenessIdsBelongToTheConnectionThatIntroducedThem() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: true)
        _ = room.join(2, user: "bob", canWrite: false)
        let ada = AwarenessUpdate([.init(clientID: 77, clock: 1, state: .object(["name": .string("ada")]))]).encode()
        let relayed = room.receive(.awareness(ada), from: 1, now: 10)
        #expect(relayed == [.send(2, .awareness(room.awareness.encodeUpdate(clients: [77])))])

        // Bob may not overwrite or remove Ada's entry; his own entry in the same update applies.
        let spoof = AwarenessUpdate([
            .init(clientID: 77, clock: 2, state: nil),
            .init(clientID: 88, clock: 1, state: .object(["name": .string("bob")])),
        ]).encode()
        let actions = room.receive(.awareness(spoof), from: 2, now: 20)
        guard case .error(2, let error) = actions.first else { Issue.record("spoof not refused"); return }
        #expect(error.code == .awarenessClientTaken)
        #expect(room.awareness.states[77] == .object(["name": .string("ada")]))
        #expect(room.awareness.states[88] != nil)
        #expect(actions.dropFirst().elementsEqual([.send(1, .awareness(room.awareness.encodeUpdate(clients: [88])))]))

        // When Ada leaves, her entries are removed for everyone, and the id is free again.
        let leaving = room.leave(1, now: 30)
        #expect(room.awareness.states[77] == nil)
        #expect(leaving == [.send(2, .awareness(room.awareness.encodeUpdate(clients: [77])))])
        let reclaim = AwarenessUpdate([.init(clientID: 77, clock: 5, state: .string("bob now"))]).encode()
        #expect(room.receive(.awareness(reclaim), from: 2, now: 40).isEmpty)  // no one else to tell
        #expect(room.awareness.states[77] == .string("bob now"))
    }

    @Test func noPeerMayClaimTheServersAwarenessID() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: true)
        let claim = AwarenessUpdate([.init(clientID: room.awareness.localClientID, clock: 1, state: .bool(true))]).encode()
        guard case .error(1, let error) = room.receive(.awareness(claim), from: 1, now: 0).first else {
            Issue.record("claim not refused"); return
        }
        #expect(error.code == .awarenessClientTaken)
        #expect(room.awareness.states.isEmpty)
    }

    @Test func silentAwarenessEntriesExpire() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: true)
        _ = room.join(2, user: "bob", canWrite: true)
        _ = room.receive(.awareness(AwarenessUpdate([.init(clientID: 77, clock: 1, state: .bool(true))]).encode()), from: 1, now: 0)
        #expect(room.expireAwareness(now: Awareness.outdatedTimeout - 1).isEmpty)
        let expired = room.expireAwareness(now: Awareness.outdatedTimeout)
        #expect(expired.count == 2)
        #expect(room.awareness.states[77] == nil)
    }

    @Test func broadcastsAreRelayedWithTheSenderAndNeverStored() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: false)
        _ = room.join(2, user: "bob", canWrite: true)
        let message = AccordMessage.broadcast(documentID: "notes", topic: "cursor", payload: #"{"x":1}"#, sender: "mallory")
        let actions = room.receive(try message.frame(), from: 1, now: 0)
        let expected = try AccordMessage.broadcast(documentID: "notes", topic: "cursor", payload: #"{"x":1}"#, sender: "ada").frame()
        #expect(actions == [.send(2, expected)])
        #expect(room.doc.encodeStateAsUpdate() == Doc().encodeStateAsUpdate())
    }

    @Test func accordMessageNamingAnotherDocumentIsRefused() throws {
        let room = makeRoom()
        _ = room.join(1, user: "ada", canWrite: true)
        let message = AccordMessage.update(documentID: "other", sequence: 1, bytes: try edit("x", client: 9))
        guard case .error(1, let error) = room.receive(try message.frame(), from: 1, now: 0).first else {
            Issue.record("not refused"); return
        }
        #expect(error.code == .malformedMessage)
        #expect(try text(of: room) == "")
    }
}
