import Testing
import AccordCRDT
import AccordStore
import AccordServer
import AccordTesting
@testable import AccordSync

/// `open(_:waitForLoad:)`: what each wait returns, and that a network wait never hangs
/// and never leaves an empty document behind.
@Suite(.timeLimit(.minutes(1))) struct OpenAndLoadTests {
    /// The server holds "notes" with `text`, written by another client.
    private func serverWithDocument(_ text: String) async throws -> ClientTestServer {
        let server = try ClientTestServer()
        let writer = server.client(store: memoryStore())
        await writer.start()
        try await writer.open("notes")
        try await writer.insert("notes", text)
        try await eventually("the writer's edit is stored") { (try? server.storedText("notes")) == text }
        await writer.stop()
        return server
    }

    @Test func networkReturnsWithTheServersContent() async throws {
        let server = try await serverWithDocument("from the server")
        let store = memoryStore()
        let client = server.client(store: store)
        await client.start()
        try await client.open("notes", waitForLoad: .network)
        #expect(try await client.text("notes") == "from the server")
        // Idempotent: a second open changes nothing and returns at once.
        try await client.open("notes", waitForLoad: .network)
        #expect(await client.openDocuments == ["notes"])
        await client.stop()
    }

    @Test func localReturnsAtOnceWithWhatTheStoreHolds() async throws {
        let server = try await serverWithDocument("from the server")
        let client = server.client(store: memoryStore())
        await client.goOffline()
        await client.start()
        try await client.open("notes", waitForLoad: .local)
        #expect(try await client.text("notes") == "")
        await client.goOnline()
        try await eventually("it fills as it syncs") { try await client.text("notes") == "from the server" }
        await client.stop()
    }

    @Test func offlineNetworkWaitsFailFastAndLeaveTheStoreAsItWas() async throws {
        let server = try await serverWithDocument("x")
        let store = memoryStore()
        try store.create("kept")
        let client = server.client(store: store)
        await client.start()
        await client.goOffline()
        for wait in [WaitForLoad.network, .localElseNetwork] {
            await #expect(throws: AccordError.self) { try await client.open("notes", waitForLoad: wait) }
            do {
                try await client.open("notes", waitForLoad: wait)
            } catch {
                #expect(error.code == .documentUnavailableOffline)
            }
        }
        #expect(try !store.contains("notes"))
        // A local copy needs no network.
        try await client.open("kept", waitForLoad: .localElseNetwork)
        #expect(await client.openDocuments == ["kept"])
        await client.stop()
    }

    @Test func aServerThatDoesNotAnswerIsANetworkTimeoutWithinTheBudget() async throws {
        let server = try ClientTestServer()
        let proxy = try FaultProxy(targetPort: server.port)
        let store = memoryStore()
        let client = server.client(store: store, url: "ws://127.0.0.1:\(proxy.port)", handshakeBudget: 500)
        await client.start()
        try await eventually("online") { await client.isOnline }
        proxy.freezeOpenConnections()
        let start = ContinuousClock.now
        do {
            try await client.open("notes", waitForLoad: .network)
            Issue.record("the open returned without the server's state")
        } catch {
            #expect(error.code == .networkTimeout)
        }
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(try !store.contains("notes"))
        #expect(await client.openDocuments.isEmpty)
        await client.stop()
        await proxy.stop()
    }

    @Test func aRefusedDocumentFailsTheOpenWithTheServersCode() async throws {
        let server = try ClientTestServer(createDocumentsOnConnect: false)
        let store = memoryStore()
        let client = server.client(store: store)
        await client.start()
        try await eventually("online") { await client.isOnline }
        do {
            try await client.open("missing", waitForLoad: .network)
            Issue.record("opened a document the server does not have")
        } catch {
            #expect(error.code == .documentNotFound)
        }
        #expect(try !store.contains("missing"))
        await client.stop()
    }

    @Test func anEvictedDocumentComesBackFromTheNetworkOnly() async throws {
        let server = try await serverWithDocument("evict me")
        let store = memoryStore()
        let client = server.client(store: store)
        await client.start()
        try await client.open("notes", waitForLoad: .network)
        #expect(await client.close("notes", evictLocal: true).evicted)
        #expect(try !store.metadata("notes").isResident)
        do {
            try await client.open("notes", waitForLoad: .local)
            Issue.record("opened an evicted document locally")
        } catch {
            #expect(error.code == .documentEvicted)
        }
        try await client.open("notes", waitForLoad: .localElseNetwork)
        #expect(try await client.text("notes") == "evict me")
        await client.stop()
    }

    @Test func evictionIsSkippedWhileEditsAreUnacknowledged() async throws {
        let server = try ClientTestServer()
        let store = memoryStore()
        let client = server.client(store: store)
        await client.start()
        await client.goOffline()
        try await client.open("notes")
        try await client.insert("notes", "unsent")
        try store.flush()
        #expect(await client.close("notes", evictLocal: true) == CloseResult(evicted: false))
        #expect(try store.metadata("notes").isResident)
        do {
            try await client.evict("notes")
            Issue.record("evicted unacknowledged edits")
        } catch {
            #expect(error.code == .unacknowledgedWrites)
        }
        try await client.evict("notes", force: true)
        #expect(try !store.metadata("notes").isResident)
        await client.stop()
    }

    @Test func createGivesANewIdWithItsMetadataAndOpensIt() async throws {
        let server = try ClientTestServer()
        let store = memoryStore()
        let client = server.client(store: store)
        await client.start()
        let id = try await client.create(title: "Plans", tags: ["work"])
        #expect(id.rawValue.count == 32)
        #expect(try store.metadata(id).title == "Plans")
        #expect(try store.metadata(id).tags == ["work"])
        #expect(await client.openDocuments == [id])
        try await client.withDocument(id) { try $0.getText("t").insert(0, "up") }
        try await eventually("created documents sync") { (try? server.storedText(id)) == "up" }
        do {
            try await client.create(id)
            Issue.record("created the same id twice")
        } catch {
            #expect(error.code == .documentExists)
        }
        await client.stop()
    }
}
