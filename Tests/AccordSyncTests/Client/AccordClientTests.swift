import Testing
import AccordCRDT
import AccordStore
import AccordServer
import AccordTesting
@testable import AccordSync

/// `AccordClient` against a real in-process `AccordServer` on port 0.
@Suite(.serialized) struct AccordClientTests {
    let id: DocumentID = "notes"

    @Test func twoClientsEditOneDocumentAndConverge() async throws {
        let server = try ClientTestServer()
        let pair = try await SyncedPair(server, id)
        let (a, b, storeA, storeB, logA) = (pair.a, pair.b, pair.storeA, pair.storeB, pair.logA)
        #expect(await a.isOnline)

        try await a.insert(id, "hello ")
        try await b.insert(id, "world ")
        try await a.insert(id, "again ")
        try await eventually("converged") {
            let (textA, textB) = (try await a.text(id), try await b.text(id))
            return textA == textB && textA.count == "hello world again ".count
        }
        try await eventually("acknowledged") {
            try storeA.isAcknowledged(id) && storeB.isAcknowledged(id)
        }
        let text = try await a.text(id)
        // b's "world " may land anywhere relative to a's edits; a's stay in a's order.
        let again = try #require(text.range(of: "again "))
        let hello = try #require(text.range(of: "hello "))
        #expect(again.lowerBound < hello.lowerBound)
        #expect(text.contains("world "))
        #expect(try server.storedText(id) == text)
        // Remote updates are logged as received: nothing of b's is waiting to be sent by a.
        #expect(try storeA.unacknowledgedUpdates(id).isEmpty)

        // A document opened while online syncs at once.
        let second: DocumentID = "second"
        try await a.open(second)
        try await b.open(second)
        try await a.insert(second, "later")
        try await eventually("second document converged") { try await b.text(second) == "later" }

        let network = await logA.networkEvents
        #expect(network == [NetworkModeEvent(mode: .auto, isOnline: true, reason: .connectivityRestored)])
        #expect(await logA.syncedCount(id) >= 1)
        #expect(await logA.failures.isEmpty)
        await a.stop()
        await b.stop()
        try await server.stop()
    }

    @Test func editsMadeWhileTheServerIsDownArriveWhenItReturns() async throws {
        let server = try ClientTestServer()
        let directory = try TemporaryDirectory(prefix: "accord-client-store")
        let store = try DocumentStore(path: directory.file("client.sqlite"))
        let client = server.client(store: store)
        let log = EventLog(client)
        await client.start()
        try await client.open(id)
        try await client.insert(id, "before ")
        try await eventually("first edit acknowledged") { try await client.isSynced(id) && store.isAcknowledged(id) }

        try await server.stop()
        try await eventually("offline after the server left") { await !client.isOnline }
        try await client.insert(id, "offline ")
        try await eventually("offline edit durable, unacknowledged") { try !store.unacknowledgedUpdates(id).isEmpty }
        // Reconnect attempts fail meanwhile; the mode stays auto.
        try await Task.sleep(for: .milliseconds(300))
        #expect(await !client.isOnline)
        #expect(await client.networkMode == .auto)

        try await server.start()
        try await eventually("reconnected by itself") { await client.isOnline }
        try await eventually("offline edit acknowledged") { try store.isAcknowledged(id) }
        #expect(try server.storedText(id) == "offline before ")
        #expect(try await client.text(id) == "offline before ")

        let reasons = await log.networkEvents.map(\.reason)
        #expect(reasons == [.connectivityRestored, .connectivityLost, .connectivityRestored])
        #expect(await log.failures.isEmpty)
        await client.stop()
        try await server.stop()
    }

    @Test func aNewClientOverTheSameStoreResendsWhatTheKilledOneLeftUnacknowledged() async throws {
        let server = try ClientTestServer()
        let directory = try TemporaryDirectory(prefix: "accord-client-store")
        let path = directory.file("client.sqlite")
        var store = try DocumentStore(path: path)

        // The first instance syncs one edit, then edits offline and goes away.
        let first = server.client(store: store)
        await first.start()
        try await first.open(id)
        try await first.insert(id, "zero ")
        try await eventually("first edit acknowledged") { try await first.isSynced(id) && store.isAcknowledged(id) }
        await first.goOffline()
        try await first.insert(id, "one ")
        try await first.insert(id, "two ")
        await first.stop()
        try store.close()
        #expect(try server.storedText(id) == "zero ")

        // A new instance over the same file resends them.
        store = try DocumentStore(path: path)
        let pending = try store.unacknowledgedUpdates(id).map(\.sequence)
        let metadata = try store.metadata(id)
        #expect(pending.count == 2, "pending \(pending), acknowledged \(metadata.acknowledgedSequence), last \(metadata.lastSequence)")
        let second = server.client(store: store)
        await second.start()
        try await second.open(id)
        try await eventually("resent and acknowledged") { try store.isAcknowledged(id) }
        #expect(try store.metadata(id).acknowledgedSequence == pending.last)
        #expect(try server.storedText(id) == "two one zero ")
        await second.stop()

        // Once acknowledged, nothing is sent again: the server's log does not grow.
        let serverSequence = try server.documents.metadata(id).lastSequence
        let third = server.client(store: store)
        await third.start()
        try await third.open(id)
        try await eventually("third instance synced") { await third.isSynced(id) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(try server.documents.metadata(id).lastSequence == serverSequence)
        #expect(try await third.text(id) == "two one zero ")

        // Another device sees each edit exactly once.
        let other = server.client(store: memoryStore())
        await other.start()
        try await other.open(id)
        try await eventually("other device caught up") { try await other.text(id) == "two one zero " }
        await third.stop()
        await other.stop()
        try store.close()
        try await server.stop()
    }

    @Test func goOfflineStopsTrafficAndGoOnlineResumesIt() async throws {
        let server = try ClientTestServer()
        let pair = try await SyncedPair(server, id)
        let (a, b, storeA, storeB, logA) = (pair.a, pair.b, pair.storeA, pair.storeB, pair.logA)

        await a.goOffline()
        #expect(await !a.isOnline)
        #expect(await a.networkMode == .offline)
        try await a.insert(id, "from-a ")
        try await b.insert(id, "from-b ")
        try await eventually("b's edit acknowledged") { try storeB.isAcknowledged(id) }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await a.text(id) == "from-a ")
        #expect(try await b.text(id) == "from-b ")
        #expect(try server.storedText(id) == "from-b ")
        #expect(try storeA.hasUnacknowledgedWrites(id))
        // Pinned offline: no reconnect happens by itself.
        #expect(await !a.isOnline)

        await a.goOnline()
        try await eventually("converged after goOnline") {
            let (textA, textB) = (try await a.text(id), try await b.text(id))
            return textA == textB && textA.contains("from-a ") && textA.contains("from-b ")
        }
        try await eventually("a's edit acknowledged") { try storeA.isAcknowledged(id) }
        #expect(await a.networkMode == .online)

        let network = await logA.networkEvents
        #expect(network == [
            NetworkModeEvent(mode: .auto, isOnline: true, reason: .connectivityRestored),
            NetworkModeEvent(mode: .offline, isOnline: false, reason: .userSet),
            NetworkModeEvent(mode: .online, isOnline: false, reason: .userSet),
            NetworkModeEvent(mode: .online, isOnline: true, reason: .connectivityRestored),
        ])
        await a.stop()
        await b.stop()
        try await server.stop()
    }

    @Test func aDroppedClientIsReleasedAndANewOneResendsItsEdits() async throws {
        let server = try ClientTestServer()
        let store = memoryStore()
        var first: AccordClient? = server.client(store: store)
        weak let released = first
        await first?.start()
        try await first?.open(id)
        try await eventually("first synced") { await first?.isSynced(id) ?? false }
        await first?.goOffline()
        try await first?.insert(id, "offline ")
        try await eventually("offline edit durable") { try !store.unacknowledgedUpdates(id).isEmpty }
        // Dropped without stop(): nothing may keep it alive.
        first = nil
        try await eventually("released") { released == nil }

        var second: AccordClient? = server.client(store: store)
        await second?.start()
        try await second?.open(id)
        try await eventually("resent and acknowledged") { try store.isAcknowledged(id) }
        #expect(try server.storedText(id) == "offline ")
        #expect(server.connections == 1)
        // Dropped while online: its connection closes with it.
        second = nil
        try await eventually("the server saw the connection close") { server.connections == 0 }
        try await server.stop()
    }

    @Test func editsInAStoreWithoutAFlushTimerAreFlushedAndSent() async throws {
        let server = try ClientTestServer()
        var options = DocumentStore.Options()
        options.flushDelay = nil
        let store = DocumentStore(storage: SerialStorage.inMemory(), options: options)
        let client = server.client(store: store)
        await client.start()
        try await client.open(id)
        try await eventually("synced") { await client.isSynced(id) }
        try await client.insert(id, "flushed")
        // Waiting on the server, not on the store (whose isAcknowledged flushes itself).
        try await eventually("arrived at the server") { try server.storedText(id) == "flushed" }
        try await eventually("acknowledged") { try store.isAcknowledged(id) }
        await client.stop()
        try await server.stop()
    }

    @Test func aRefusedTokenIsReportedAndTheProviderIsAskedAgainAtEachAttempt() async throws {
        let server = try ClientTestServer()
        let calls = CallCounter()
        let good = server.token("alice")
        let client = AccordClient(
            serverURL: server.url, store: memoryStore(), reconnect: ReconnectPolicy(initialDelay: 50, maxDelay: 400)
        ) {
            await calls.next() <= 2 ? "not-a-token" : good
        }
        let log = EventLog(client)
        await client.start()
        try await client.open(id)
        try await eventually("synced with the third token") { await client.isSynced(id) }
        #expect(await calls.count == 3)
        let refusals = await log.events.filter {
            if case .connectionError(let error) = $0 { error.code == .unauthenticated } else { false }
        }
        #expect(refusals.count == 2)
        // Refused attempts were never online: one transition only.
        #expect(await log.networkEvents == [NetworkModeEvent(mode: .auto, isOnline: true, reason: .connectivityRestored)])
        await client.stop()
        try await server.stop()
    }

    @Test func aReadersEditsAreRejectedOnceAndItStillReceivesTheWritersChanges() async throws {
        let server = try ClientTestServer()
        try server.share(id, with: "bob", as: .reader)
        let (storeA, storeB) = (memoryStore(), memoryStore())
        let writer = server.client("alice", store: storeA)
        let reader = server.client("bob", store: storeB)
        let readerLog = EventLog(reader)
        await writer.start()
        await reader.start()
        try await writer.open(id)
        try await reader.open(id)
        try await writer.insert(id, "shared ")
        try await eventually("the reader received the writer's edit") { try await reader.text(id) == "shared " }

        try await reader.insert(id, "mine ")
        try await eventually("the reader's write was rejected") {
            await readerLog.events.contains { if case .document(_, .writeRejected) = $0 { true } else { false } }
        }
        let rejections = await readerLog.events.compactMap { event -> AccordError? in
            if case .document(let document, .writeRejected(let error)) = event, document == id { error } else { nil }
        }
        #expect(rejections.map(\.code) == [.permissionDenied])
        // Parked: more edits are kept, not sent, not refused again; the writer's still arrive.
        try await reader.insert(id, "more ")
        try await writer.insert(id, "again ")
        // Where "again " lands among the reader's own inserts at 0 depends on the client ids.
        try await eventually("the reader still receives") { try await reader.text(id).contains("again ") }
        try await Task.sleep(for: .milliseconds(200))
        #expect(try server.storedText(id) == "again shared ")
        #expect(try storeB.hasUnacknowledgedWrites(id))
        #expect(await readerLog.events.filter { if case .document(_, .writeRejected) = $0 { true } else { false } }.count == 1)
        #expect(await !reader.isSynced(id))
        await writer.stop()
        await reader.stop()
        try await server.stop()
    }

    @Test func aDocumentThatIsNotOpenCannotBeEdited() async throws {
        let client = AccordClient(serverURL: "ws://127.0.0.1:1", store: memoryStore()) { "unused" }
        let error = await #expect(throws: AccordError.self) { try await client.insert(id, "x") }
        #expect(error?.code == .documentNotOpen)
        try await client.open(id)
        try await client.insert(id, "x")
        await client.close(id)
        await #expect(throws: AccordError.self) { try await client.text(id) }
        await client.stop()
    }

    @Test func tokensAreEscapedForTheQuery() {
        #expect(SyncPath.queryEscaped("eyJ.a-b_c~9") == "eyJ.a-b_c~9")
        #expect(SyncPath.queryEscaped("a b&c=é") == "a%20b%26c%3D%C3%A9")
    }
}
