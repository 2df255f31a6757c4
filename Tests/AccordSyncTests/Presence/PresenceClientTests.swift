import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordServer
import AccordTesting
@testable import AccordSync

/// Presence and broadcasts between `AccordClient`s through a real in-process
/// `AccordServer` on port 0.
@Suite(.serialized) struct PresenceClientTests {
    let id: DocumentID = "notes"

    /// A started client of `user` with `id` open.
    func opened(_ server: ClientTestServer, _ user: String = "alice") async throws -> AccordClient {
        let client = server.client(user, store: memoryStore())
        await client.start()
        try await client.open(id)
        return client
    }

    @Test func twoClientsSeeEachOthersPresenceAsItChanges() async throws {
        let server = try ClientTestServer()
        let b = server.client(store: memoryStore())
        let bLog = EventLog(b)
        let bOthers = Collected(await b.presenceEvents(id, filter: .others))
        await b.start()
        try await b.open(id)
        try await eventually("b initialized, alone") { await bOthers.items.count == 1 }

        let a = try await opened(server)
        // Connected first, so each set below goes out on its own.
        try await eventually("a synced") { await a.isSynced(id) }
        let aMine = Collected(await a.presenceEvents(id, filter: .mine))
        let aID = try await a.clientID(id)
        try await a.setPresence(id, ["name": "ann"])
        try await a.setPresence(id, ["cursor": 4])
        try await eventually("b saw a appear and move") { await bOthers.items.count == 3 }
        #expect(await bOthers.items == [
            PresenceEvent(.initialized(others: [:]), isMine: false),
            PresenceEvent(.watched(aID, ["name": "ann"]), isMine: false),
            PresenceEvent(.presenceChanged(aID, ["name": "ann", "cursor": 4]), isMine: false),
        ])
        #expect(try await b.presences(id) == [aID: ["name": "ann", "cursor": 4]])
        #expect(try await a.myPresence(id) == ["name": "ann", "cursor": 4])
        #expect(await aMine.items == [
            PresenceEvent(.watched(aID, ["name": "ann"]), isMine: true),
            PresenceEvent(.presenceChanged(aID, ["name": "ann", "cursor": 4]), isMine: true),
        ])
        // The same events reach the client's `events`.
        #expect(await bLog.events.contains(.presence(id, PresenceEvent(.watched(aID, ["name": "ann"]), isMine: false))))

        let bID = try await b.clientID(id)
        try await b.setPresence(id, ["name": "bea"])
        try await eventually("a sees b") { try await a.presences(id) == [bID: ["name": "bea"]] }

        // A client joining later is initialized with both.
        let c = server.client(store: memoryStore())
        let cAll = Collected(await c.presenceEvents(id))
        await c.start()
        try await c.open(id)
        try await eventually("c initialized") { await !cAll.items.isEmpty }
        #expect(await cAll.items.first == PresenceEvent(
            .initialized(others: [aID: ["name": "ann", "cursor": 4], bID: ["name": "bea"]]), isMine: false))
        #expect(try await c.presences(id) == [aID: ["name": "ann", "cursor": 4], bID: ["name": "bea"]])
        #expect(await bLog.failures.isEmpty)
        for client in [a, b, c] { await client.stop() }
        try await server.stop()
    }

    @Test func closingTheDocumentOrStoppingMakesTheOthersSeeUnwatched() async throws {
        let server = try ClientTestServer()
        let (a, b) = (try await opened(server), try await opened(server))
        let bOthers = Collected(await b.presenceEvents(id, filter: .others))
        try await a.setPresence(id, ["name": "ann"])
        let first = try await a.clientID(id)
        try await eventually("b sees a") { try await b.presences(id)[first] != nil }

        await a.close(id)
        try await eventually("b saw a leave") {
            await bOthers.items.contains(PresenceEvent(.unwatched(first), isMine: false))
        }
        #expect(try await b.presences(id).isEmpty)

        // Reopened from the same store, the document writes under the same client id
        // (the store's client lease), so presence comes back under it too.
        try await a.open(id)
        let second = try await a.clientID(id)
        #expect(second == first)
        try await a.setPresence(id, ["name": "ann again"])
        try await eventually("b sees a back") { try await b.presences(id) == [second: ["name": "ann again"]] }

        await a.stop()
        try await eventually("b saw a stop") {
            await bOthers.items.filter { $0 == PresenceEvent(.unwatched(second), isMine: false) }.count == 2
        }
        #expect(try await b.presences(id).isEmpty)
        await b.stop()
        try await server.stop()
    }

    @Test func presenceIsSentAgainWhenAClientComesBackOnline() async throws {
        let server = try ClientTestServer()
        let (a, b) = (try await opened(server), try await opened(server))
        let (aID, bID) = (try await a.clientID(id), try await b.clientID(id))
        let aOthers = Collected(await a.presenceEvents(id, filter: .others))
        let bOthers = Collected(await b.presenceEvents(id, filter: .others))
        try await a.setPresence(id, ["name": "ann"])
        try await b.setPresence(id, ["name": "bea"])
        try await eventually("both see each other") {
            let (seenByA, seenByB) = (try await a.presences(id), try await b.presences(id))
            return seenByA[bID] != nil && seenByB[aID] != nil
        }

        // Twice: unchanged (the server kept a's clock, so the entry must come with a newer
        // one), then changed while offline (kept, sent on the next connection).
        for (round, offlineChange) in [[:], ["cursor": 9]].enumerated() as EnumeratedSequence<[[String: AnyValue]]> {
            await a.goOffline()
            // The server forgets a's state with its connection; a forgets the others with it.
            try await eventually("b saw a go") {
                await bOthers.items.filter { $0 == PresenceEvent(.unwatched(aID), isMine: false) }.count == round + 1
            }
            try await eventually("a forgot b") { await aOthers.items.last == PresenceEvent(.unwatched(bID), isMine: false) }
            #expect(try await a.presences(id).isEmpty)
            if !offlineChange.isEmpty { try await a.setPresence(id, offlineChange) }
            let expected = try #require(try await a.myPresence(id))

            await a.goOnline()
            // Well before a's 15 s renewal would repair a lost entry.
            try await eventually("b sees a again, as it is now", timeout: .seconds(5)) {
                try await b.presences(id) == [aID: expected]
            }
            try await eventually("a initialized again with b") {
                await aOthers.items.last == PresenceEvent(.initialized(others: [bID: ["name": "bea"]]), isMine: false)
            }
        }
        #expect(try await b.presences(id) == [aID: ["name": "ann", "cursor": 9]])
        await a.stop()
        await b.stop()
        try await server.stop()
    }

    @Test func presenceIsSentAgainToARestartedServer() async throws {
        let server = try ClientTestServer()
        let (a, b) = (try await opened(server), try await opened(server))
        let (aID, bID) = (try await a.clientID(id), try await b.clientID(id))
        try await a.setPresence(id, ["name": "ann"])
        try await b.setPresence(id, ["name": "bea"])
        try await eventually("both see each other") {
            let (seenByA, seenByB) = (try await a.presences(id), try await b.presences(id))
            return seenByA[bID] != nil && seenByB[aID] != nil
        }

        try await server.stop()
        try await eventually("both offline, alone") {
            let (onlineA, onlineB) = (await a.isOnline, await b.isOnline)
            let (seenByA, seenByB) = (try await a.presences(id), try await b.presences(id))
            return !onlineA && !onlineB && seenByA.isEmpty && seenByB.isEmpty
        }
        // The new server knows no awareness at all: both must announce themselves again.
        try await server.start()
        try await eventually("both see each other again") {
            let (seenByA, seenByB) = (try await a.presences(id), try await b.presences(id))
            return seenByA == [bID: ["name": "bea"]] && seenByB == [aID: ["name": "ann"]]
        }
        await a.stop()
        await b.stop()
        try await server.stop()
    }

    @Test func aYjsPeerAndAnAccordClientSeeEachOther() async throws {
        let server = try ClientTestServer()
        let a = try await opened(server)
        let aID = try await a.clientID(id)
        let aOthers = Collected(await a.presenceEvents(id, filter: .others))
        try await a.setPresence(id, ["name": "ann"])
        try await eventually("a initialized") { await !aOthers.items.isEmpty }

        let yjsID: ClientID = 4242
        let peer = try await YjsAwarenessPeer(url: "\(server.url)/v1/sync/\(id.rawValue)?token=\(server.token("alice"))", clientID: yjsID)
        try await eventually("the Yjs peer sees a") { await peer.awareness.states[aID] == ["name": "ann"] }
        await peer.set(["user": ["name": "yjs", "color": "#ff0"]])
        try await eventually("a sees the Yjs peer") {
            await aOthers.items.contains(PresenceEvent(.watched(yjsID, ["user": ["name": "yjs", "color": "#ff0"]]), isMine: false))
        }
        try await a.setPresence(id, ["cursor": 1])
        try await eventually("the Yjs peer sees a move") { await peer.awareness.states[aID] == ["name": "ann", "cursor": 1] }

        await peer.close()
        try await eventually("a saw the Yjs peer leave") {
            await aOthers.items.contains(PresenceEvent(.unwatched(yjsID), isMine: false))
        }
        await a.stop()
        try await server.stop()
    }

    // MARK: Broadcast

    /// `alice` owns the document, `bob` may write it, both have it open.
    func aliceAndBob(_ server: ClientTestServer) async throws -> (alice: AccordClient, bob: AccordClient) {
        try server.share(id, with: "bob", as: .readWrite)
        let (alice, bob) = (try await opened(server, "alice"), try await opened(server, "bob"))
        try await eventually("both synced") {
            let (syncedA, syncedB) = (await alice.isSynced(id), await bob.isSynced(id))
            return syncedA && syncedB
        }
        return (alice, bob)
    }

    @Test func aBroadcastReachesTheOthersWithItsSenderAndTopicsFilter() async throws {
        let server = try ClientTestServer()
        let (alice, bob) = try await aliceAndBob(server)
        let bobLog = EventLog(bob)
        let bobAll = Collected(await bob.broadcasts(id))
        let bobCursors = Collected(await bob.broadcasts(id, topic: "cursor"))
        let aliceAll = Collected(await alice.broadcasts(id))

        #expect(try await alice.broadcast(id, topic: "cursor", payload: #"{"x":1}"#))
        #expect(try await alice.broadcast(id, topic: "chat", payload: #""hi""#))
        #expect(try await alice.broadcast(id, topic: "cursor", payload: #"{"x":2}"#))
        try await eventually("bob received all three") { await bobAll.items.count == 3 }
        #expect(await bobAll.items == [
            BroadcastMessage(topic: "cursor", payload: #"{"x":1}"#, sender: "alice"),
            BroadcastMessage(topic: "chat", payload: #""hi""#, sender: "alice"),
            BroadcastMessage(topic: "cursor", payload: #"{"x":2}"#, sender: "alice"),
        ])
        #expect(await bobCursors.items == [
            BroadcastMessage(topic: "cursor", payload: #"{"x":1}"#, sender: "alice"),
            BroadcastMessage(topic: "cursor", payload: #"{"x":2}"#, sender: "alice"),
        ])
        #expect(await bobLog.events.contains(.broadcast(id, BroadcastMessage(topic: "chat", payload: #""hi""#, sender: "alice"))))

        // The sender does not hear itself: bob's answer, relayed after alice's three, is
        // the first thing alice receives.
        #expect(try await bob.broadcast(id, topic: "chat", payload: #""hello""#))
        try await eventually("alice received bob's") { await !aliceAll.items.isEmpty }
        #expect(await aliceAll.items == [BroadcastMessage(topic: "chat", payload: #""hello""#, sender: "bob")])
        await alice.stop()
        await bob.stop()
        try await server.stop()
    }

    @Test func broadcastsLeaveNoTraceInTheServersStore() async throws {
        let server = try ClientTestServer()
        let (alice, bob) = try await aliceAndBob(server)
        let bobAll = Collected(await bob.broadcasts(id))
        // An edit, so the scan below is shown to find what the server does store.
        try await alice.insert(id, "stored-edit-marker")
        try await eventually("edit stored durably") {
            try server.documents.metadata(id).lastSequence > 0 && server.storedText(id) == "stored-edit-marker"
        }
        let sequence = try server.documents.metadata(id).lastSequence

        let marker = "broadcast-marker-\(UInt64.random(in: 0...UInt64.max))"
        #expect(try await alice.broadcast(id, topic: "t", payload: "\"\(marker)\""))
        try await eventually("bob received it") { await bobAll.items.count == 1 }
        #expect(try server.documents.metadata(id).lastSequence == sequence)

        await alice.stop()
        await bob.stop()
        try await server.stop()
        // Every byte the server wrote: database, WAL, anything else in its directory.
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: server.directory.path) {
            files[name] = Array(try Data(contentsOf: URL(fileURLWithPath: server.directory.file(name))))
        }
        func found(_ text: String) -> Bool {
            let needle = Array(text.utf8)
            return files.values.contains { bytes in
                guard bytes.count >= needle.count else { return false }
                return (0...(bytes.count - needle.count)).contains { start in
                    needle.indices.allSatisfy { bytes[start + $0] == needle[$0] }
                }
            }
        }
        #expect(found("stored-edit-marker"))
        #expect(!found(marker))
    }

    // MARK: Input and lifetime

    @Test func callsOnADocumentNotOpenOrWithBadInputAreRefusedAndOfflineBroadcastsAreDropped() async throws {
        let client = AccordClient(serverURL: "ws://127.0.0.1:1", store: memoryStore()) { "unused" }
        let notOpen = try await #require(throws: AccordError.self) { try await client.setPresence(id, ["a": 1]) }
        #expect(notOpen.code == .documentNotOpen)
        await #expect(throws: AccordError.self) { try await client.myPresence(id) }
        await #expect(throws: AccordError.self) { try await client.presences(id) }
        let broadcastNotOpen = try await #require(throws: AccordError.self) {
            try await client.broadcast(id, topic: "t", payload: "1")
        }
        #expect(broadcastNotOpen.code == .documentNotOpen)

        try await client.open(id)
        let notJSON = try await #require(throws: AccordError.self) { try await client.broadcast(id, topic: "t", payload: "{oops") }
        #expect(notJSON.code == .invalidArgument)
        // Offline (never started): nothing is queued.
        #expect(try await client.broadcast(id, topic: "t", payload: "1") == false)

        try await client.setPresence(id, ["name": "ann"])
        #expect(try await client.myPresence(id) == ["name": "ann"])
        #expect(try await client.presences(id).isEmpty)
        await client.stop()
    }

    @Test func whatExceedsTheServersFrameLimitIsRefusedAndChangesNothing() async throws {
        let directory = try TemporaryDirectory(prefix: "accord-presence")
        let documents = try DocumentStore(path: directory.file("server.sqlite"))
        let tokens = try TokenAuthority(secret: ClientTestServer.secret)
        var configuration = AccordServer.Configuration()
        configuration.maxFrameBytes = 1024
        let server = try AccordServer(configuration: configuration, documents: documents, tokens: tokens)
        let token = tokens.mint(subject: "alice", ttl: 3600)
        let client = AccordClient(serverURL: "ws://127.0.0.1:\(server.port)", store: memoryStore()) { token }
        await client.start()
        try await client.open(id)
        try await eventually("synced") { await client.isSynced(id) }
        try await client.setPresence(id, ["name": "ann"])

        let big = String(repeating: "x", count: 2_000)
        let presenceError = try await #require(throws: AccordError.self) {
            try await client.setPresence(id, ["bio": .string(big)])
        }
        #expect(presenceError.code == .messageTooLarge)
        #expect(try await client.myPresence(id) == ["name": "ann"])
        let broadcastError = try await #require(throws: AccordError.self) {
            try await client.broadcast(id, topic: "t", payload: "\"\(big)\"")
        }
        #expect(broadcastError.code == .messageTooLarge)
        #expect(try await client.broadcast(id, topic: "t", payload: "\"small\""))
        await client.stop()
        try await server.stop()
        try documents.close()
    }

    @Test func aStreamWhoseConsumerGoesAwayIsDropped() async throws {
        let client = AccordClient(serverURL: "ws://127.0.0.1:1", store: memoryStore()) { "unused" }
        let stream = await client.broadcasts(id)
        let consumer = Task { for await _ in stream {} }
        #expect(await client.broadcastSubscribers.count == 1)
        consumer.cancel()
        try await eventually("dropped") { await client.broadcastSubscribers.count == 0 }
        await client.stop()
    }

    @Test func streamsFinishWhenTheClientStops() async throws {
        let client = AccordClient(serverURL: "ws://127.0.0.1:1", store: memoryStore()) { "unused" }
        let presence = Collected(await client.presenceEvents(id))
        let broadcasts = Collected(await client.broadcasts(id, topic: "t"))
        await client.stop()
        try await eventually("both finished") {
            let (presenceDone, broadcastsDone) = (await presence.isFinished, await broadcasts.isFinished)
            return presenceDone && broadcastsDone
        }
        let late = Collected(await client.broadcasts(id))
        try await eventually("a stream asked for after stop is finished") { await late.isFinished }
    }
}
