import Testing
import AccordCRDT
import AccordStore
import AccordServer
@testable import AccordSync

/// A reader's refused edits: the document parks, `resync` drops them (or sends them
/// again once the refusal no longer holds), and other documents keep syncing.
@Suite(.timeLimit(.minutes(1))) struct ResyncTests {
    /// "notes" owned by alice with "shared " in it; bob may only read it.
    private func serverWithReader() async throws -> ClientTestServer {
        let server = try ClientTestServer()
        try server.share("notes", with: "bob", as: .reader)
        let writer = server.client("alice", store: memoryStore())
        await writer.start()
        try await writer.open("notes")
        try await writer.insert("notes", "shared ")
        try await eventually("stored") { (try? server.storedText("notes")) == "shared " }
        await writer.stop()
        return server
    }

    @Test func discardingDropsTheRefusedChangesAndReanchorsOnTheServer() async throws {
        let server = try await serverWithReader()
        let store = memoryStore()
        let reader = server.client("bob", store: store)
        await reader.start()
        try await reader.open("notes", waitForLoad: .network)
        try await reader.open("own")
        let rejected = reader.expectEvent(WriteRejectedEvent.self) { $0.documentID == "notes" }
        try await reader.insert("notes", "refused ")
        #expect(try await rejected.value().error.code == .permissionDenied)
        #expect(await reader.writeRefusal("notes")?.code == .permissionDenied)
        // Other documents keep syncing while this one is parked.
        try await reader.withDocument("own") { try $0.getText("t").insert(0, "mine") }
        try await eventually("the other document synced") { (try? server.storedText("own")) == "mine" }

        try await reader.setPresence("notes", ["name": "bob"])
        let droppedEvent = reader.expectEvent(LocalChangesDroppedEvent.self)
        let dropped = try await reader.resync("notes", discardLocalChanges: true)
        #expect(dropped.count == 1)
        #expect(try await droppedEvent.value().updates == dropped)
        #expect(try await reader.text("notes") == "shared ")
        #expect(try !store.hasUnacknowledgedWrites("notes"))
        #expect(try store.load("notes").getText("t").string == "shared ")
        #expect(await reader.writeRefusal("notes") == nil)
        #expect(try await reader.myPresence("notes") == .object(["name": "bob"]))
        // Still open, still receiving.
        let writer = server.client("alice", store: memoryStore())
        await writer.start()
        try await writer.open("notes", waitForLoad: .network)
        try await writer.withDocument("notes") { try $0.getText("t").insert(7, "more") }
        try await eventually("the re-anchored document receives") { try await reader.text("notes") == "shared more" }
        await writer.stop()
        await reader.stop()
    }

    @Test func withoutDiscardingTheChangesAreSentAgainOnceAllowed() async throws {
        let server = try await serverWithReader()
        let store = memoryStore()
        let reader = server.client("bob", store: store)
        await reader.start()
        try await reader.open("notes", waitForLoad: .network)
        let rejected = reader.expectEvent(WriteRejectedEvent.self)
        try await reader.insert("notes", "later ")
        _ = try await rejected.value()
        try server.share("notes", with: "bob", as: .readWrite)
        #expect(try await reader.resync("notes", discardLocalChanges: false).isEmpty)
        try await eventually("the edit is accepted now") { try server.storedText("notes") == "later shared " }
        try await eventually("and acknowledged") { try store.isAcknowledged("notes") }
        await reader.stop()
    }

    @Test func resyncNeedsTheNetwork() async throws {
        let server = try ClientTestServer()
        let client = server.client(store: memoryStore())
        await client.start()
        try await client.open("notes")
        await client.goOffline()
        do {
            try await client.resync("notes", discardLocalChanges: true)
            Issue.record("resynced offline")
        } catch {
            #expect(error.code == .documentUnavailableOffline)
        }
        do {
            try await client.resync("closed", discardLocalChanges: true)
            Issue.record("resynced a document that is not open")
        } catch {
            #expect(error.code == .documentNotOpen)
        }
        await client.stop()
    }
}
