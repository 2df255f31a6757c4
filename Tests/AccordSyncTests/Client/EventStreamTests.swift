import Testing
import AccordCRDT
import AccordStore
@testable import AccordSync

/// `stream(for:)`, `events` and `nextEvent`: typed selection, several subscribers,
/// timeouts, cancellation and the end of the streams at `stop()`.
@Suite(.timeLimit(.minutes(1))) struct EventStreamTests {
    @Test func typedStreamsSeeOnlyTheirKindAndEverySubscriberSeesEveryEvent() async throws {
        let server = try ClientTestServer()
        let client = server.client(store: memoryStore())
        let network = client.stream(for: NetworkModeEvent.self)
        let states = client.stream(for: DocumentSyncStateChangedEvent.self)
        let all = client.events
        await client.start()
        try await client.open("notes")

        var networkIterator = network.makeAsyncIterator()
        let online = await networkIterator.next()
        #expect(online == NetworkModeEvent(mode: .auto, isOnline: true, reason: .connectivityRestored))
        var stateIterator = states.makeAsyncIterator()
        let synced = await stateIterator.next()
        #expect(synced == DocumentSyncStateChangedEvent(documentID: "notes", state: .synced))
        // The untyped stream saw both, in the order emitted (among the directory's events
        // about the creation, which come on the same connection).
        var allIterator = all.makeAsyncIterator()
        var seen: [ClientEvent] = []
        while seen.count < 2, let event = await allIterator.next() {
            switch event {
            case .network, .document: seen.append(event)
            default: continue
            }
        }
        #expect(seen == [.network(online!), .document("notes", .synced)])
        await client.stop()
        // Every stream ends with the client.
        #expect(await networkIterator.next() == nil)
        #expect(await stateIterator.next() == nil)
    }

    @Test func aStreamWhoseLoopEndedUnsubscribes() async throws {
        let client = AccordClient(serverURL: "ws://127.0.0.1:1", store: memoryStore()) { "token" }
        let task = Task {
            for await _ in client.stream(for: NetworkModeEvent.self) {}
        }
        try await eventually("subscribed") { client.bus.subscriberCount == 1 }
        task.cancel()
        try await eventually("unsubscribed when the loop's task was cancelled") { client.bus.subscriberCount == 0 }
    }

    @Test func nextEventReturnsTheFirstMatchAndTimesOutWithUnavailable() async throws {
        let server = try ClientTestServer()
        let client = server.client(store: memoryStore())
        let online = Task { try await client.nextEvent(NetworkModeEvent.self, timeout: .seconds(10)) { $0.isOnline } }
        try await eventually("subscribed") { client.bus.subscriberCount == 1 }
        await client.start()
        #expect(try await online.value.reason == .connectivityRestored)

        let start = ContinuousClock.now
        do {
            _ = try await client.nextEvent(WriteRejectedEvent.self, timeout: .milliseconds(200))
            Issue.record("no write was refused, yet an event came")
        } catch let error as AccordError {
            #expect(error.code == .unavailable)
            #expect(ContinuousClock.now - start >= .milliseconds(200))
        }
        await client.stop()
    }

    @Test func nextEventThrowsCancellationErrorWhenItsTaskIsCancelled() async throws {
        let client = AccordClient(serverURL: "ws://127.0.0.1:1", store: memoryStore()) { "token" }
        let waiting = Task { try await client.nextEvent(AuthErrorEvent.self, timeout: .seconds(30)) }
        try await eventually("subscribed") { client.bus.subscriberCount == 1 }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }

    @Test func documentChangedFollowsDurableLocalAndRemoteChanges() async throws {
        let server = try ClientTestServer()
        let pair = try await SyncedPair(server, "notes")
        let local = pair.a.expectEvent(DocumentChangedEvent.self) { $0.documentID == "notes" }
        let remote = pair.b.expectEvent(DocumentChangedEvent.self) { $0.documentID == "notes" }
        try await pair.a.insert("notes", "hello")
        let localEvent = try await local.value()
        #expect(localEvent.origin == .local)
        // Announced after the store made it durable: the store has it without a flush.
        #expect(try pair.storeA.metadata("notes").lastSequence >= localEvent.sequences.upperBound)
        #expect(try pair.storeA.load("notes").getText("t").string == "hello")
        let remoteEvent = try await remote.value()
        #expect(remoteEvent.origin == .remote)
        #expect(try pair.storeB.load("notes").getText("t").string == "hello")
        await pair.a.stop()
        await pair.b.stop()
    }
}
