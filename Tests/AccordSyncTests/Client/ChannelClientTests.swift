import Testing
import AccordCRDT
import AccordServer
import AccordStore
@testable import AccordSync

/// Channels from real `AccordClient`s through a real server: attach (realtime or
/// not), live counts, broadcasts, sync, detach, a server restart, token patterns.
@Suite(.serialized) struct ChannelClientTests {
    @Test func invalidKeysThrowAtChannelKey() {
        for key in ["", "a..b", ".a", "a.", "a b", "room/1", String(repeating: "k", count: 129)] {
            #expect { try Channel(key: key) } throws: { ($0 as? AccordError)?.code == .invalidArgument }
        }
        #expect(throws: Never.self) { try Channel(key: "room-1.section-a") }
    }

    @Test func countsBroadcastsSyncAndDetachThroughOneConnection() async throws {
        let server = try ClientTestServer()
        let names = ["alice", "bob", "carol", "dave"]
        let clients = names.map { server.client($0, store: memoryStore()) }
        for client in clients { await client.start() }
        try await eventually("all online") {
            for client in clients where await !client.isOnline { return false }
            return true
        }
        let (alice, bob, carol, dave) = (clients[0], clients[1], clients[2], clients[3])
        let aliceRoom = try Channel(key: "room-1.a")
        let bobRoom = try Channel(key: "room-1.a")
        let carolRoom = try Channel(key: "room-1.b")
        let daveFloor = try Channel(key: "room-1")

        try await alice.attachChannel(aliceRoom)
        #expect(aliceRoom.getSessionCount() == 1)
        var aliceChanges = aliceRoom.subscribePresenceChange().makeAsyncIterator()
        let bobWaves = bobRoom.subscribeTopic("wave")
        try await bob.attachChannel(bobRoom)
        #expect(bobRoom.getSessionCount() == 2)
        #expect(await aliceChanges.next()?.sessionCount == 2)
        try await carol.attachChannel(carolRoom)
        try await dave.attachChannel(daveFloor, isRealtime: false)
        #expect(daveFloor.getSessionCount() == 4)  // dave, and the three under room-1
        #expect(!daveFloor.isRealtime)

        // A broadcast reaches the other realtime member at the key, once; not carol
        // (another key), not dave (not realtime), not alice herself.
        let carolAll = carolRoom.subscribeBroadcast()
        let aliceAll = aliceRoom.subscribeBroadcast()
        #expect(try await aliceRoom.broadcast(topic: "wave", payload: #"{"hi":1}"#))
        #expect(try await alice.broadcast(aliceRoom.key, topic: "other", payload: "2"))
        var bobIterator = bobWaves.makeAsyncIterator()
        let received = await bobIterator.next()
        #expect(received == BroadcastMessage(topic: "wave", payload: #"{"hi":1}"#, sender: "alice"))

        // Bob goes: alice is told at once, dave learns it when he asks.
        await bob.stop()
        #expect(await aliceChanges.next()?.sessionCount == 1)
        #expect(try await dave.syncChannel(daveFloor) == 3)
        #expect(bobRoom.getSessionCount() == 0)
        #expect(!bobRoom.isAttached)

        // The server restarts: every attached channel is attached again on reconnect.
        try await server.stop()
        try await server.start()
        try await eventually("counts after the restart", timeout: .seconds(20)) {
            (try? await dave.syncChannel(daveFloor)) == 3
        }
        try await eventually("alice's count after the restart") { aliceRoom.getSessionCount() == 1 }

        // Detach: count 0, streams finish, broadcasting refused.
        await alice.detachChannel(aliceRoom)
        #expect(!aliceRoom.isAttached)
        #expect(aliceRoom.getSessionCount() == 0)
        await #expect { try await aliceRoom.broadcast(topic: "wave", payload: "1") } throws: {
            ($0 as? AccordError)?.code == .channelNotAttached
        }
        await #expect { try await alice.broadcast(aliceRoom.key, topic: "wave", payload: "1") } throws: {
            ($0 as? AccordError)?.code == .channelNotAttached
        }
        var finished = 0
        for await _ in aliceAll { finished += 1 }  // ends: alice never receives her own
        #expect(finished == 0)
        try await eventually("dave sees alice gone") { (try? await dave.syncChannel(daveFloor)) == 2 }
        // Carol heard nothing of room-1.a.
        await carol.stop()
        var carolReceived = 0
        for await _ in carolAll { carolReceived += 1 }
        #expect(carolReceived == 0)

        await alice.stop()
        await dave.stop()
        try await server.stop()
    }

    @Test func theTokensChannelPatternIsEnforced() async throws {
        let server = try ClientTestServer()
        let token = server.tokens.mint(subject: "ann", ttl: 3600, channels: try ChannelKeyPattern(validating: "room-2"))
        let client = AccordClient(serverURL: server.url, store: memoryStore(), tokenProvider: { token })
        await client.start()
        try await eventually("online") { await client.isOnline }
        let outside = try Channel(key: "room-1.a")
        await #expect { try await client.attachChannel(outside) } throws: {
            ($0 as? AccordError)?.code == .channelAccessDenied
        }
        #expect(!outside.isAttached)
        #expect(await client.attachedChannels.isEmpty)
        let inside = try Channel(key: "room-2.x")
        try await client.attachChannel(inside)
        #expect(inside.getSessionCount() == 1)
        // A Channel is one client's; a second object at the same key is refused.
        await #expect { try await client.attachChannel(try Channel(key: "room-2.x")) } throws: {
            ($0 as? AccordError)?.code == .invalidArgument
        }
        await client.stop()
        try await server.stop()
    }
}
