import Testing
import AccordCRDT
import AccordStore
@testable import AccordSync

/// Each sync mode, end to end through the server (the machine's own rules are in
/// `Document/SyncModeTests.swift`).
@Suite(.timeLimit(.minutes(1))) struct ClientSyncModeTests {
    @Test func manualSendsAndReceivesOnlyWhenAsked() async throws {
        let server = try ClientTestServer()
        let pair = try await SyncedPair(server, "notes")
        try await pair.a.setSyncMode("notes", .manual)
        #expect(await pair.a.syncMode("notes") == .manual)
        try await pair.a.insert("notes", "mine ")
        try await pair.b.insert("notes", "theirs ")
        try await eventually("b's edit is stored") { try server.storedText("notes") == "theirs " }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try server.storedText("notes") == "theirs ")
        #expect(try await pair.a.text("notes") == "mine ")

        try await pair.a.sync("notes")
        try await eventually("a round ran both ways") {
            let local = try await pair.a.text("notes")
            return try server.storedText("notes").contains("mine ") && local.contains("theirs ")
        }
        await pair.a.stop()
        await pair.b.stop()
    }

    @Test func pushOnlySendsButTakesNothingIn() async throws {
        let server = try ClientTestServer()
        let pair = try await SyncedPair(server, "notes")
        try await pair.a.setSyncMode("notes", .realtimePushOnly)
        try await pair.a.insert("notes", "up ")
        try await eventually("a's edit reached the server") { try server.storedText("notes").contains("up ") }
        try await pair.b.insert("notes", "down ")
        try await eventually("b's edit is stored") { try server.storedText("notes").contains("down ") }
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await pair.a.text("notes") == "up ")
        // Back to realtime: the round brings what was skipped.
        try await pair.a.setSyncMode("notes", .realtime)
        try await eventually("caught up") { try await pair.a.text("notes").contains("down ") }
        await pair.a.stop()
        await pair.b.stop()
    }

    @Test func syncOffExchangesNothingWhileOtherDocumentsSync() async throws {
        let server = try ClientTestServer()
        let pair = try await SyncedPair(server, "notes")
        try await pair.a.open("other")
        try await pair.a.setSyncMode("notes", .realtimeSyncOff)
        try await pair.a.insert("notes", "kept ")
        try await pair.a.withDocument("other") { try $0.getText("t").insert(0, "flows") }
        try await eventually("the other document syncs") { (try? server.storedText("other")) == "flows" }
        try await pair.a.sync("notes")  // ignored in realtimeSyncOff
        try await Task.sleep(for: .milliseconds(300))
        #expect(try server.storedText("notes") == "")
        #expect(try pair.storeA.hasUnacknowledgedWrites("notes"))
        await pair.a.stop()
        await pair.b.stop()
    }

    @Test func pollingBringsRemoteChangesAtTheInterval() async throws {
        let server = try ClientTestServer()
        let pair = try await SyncedPair(server, "notes")
        try await pair.a.setSyncMode("notes", .polling(interval: 200))
        try await pair.b.insert("notes", "polled ")
        try await eventually("the next poll brings it", timeout: .seconds(5)) {
            try await pair.a.text("notes") == "polled "
        }
        try await pair.a.insert("notes", "sent ")
        try await eventually("a's edit goes at the next round", timeout: .seconds(5)) {
            try server.storedText("notes").contains("sent ")
        }
        await pair.a.stop()
        await pair.b.stop()
    }

    @Test func openWithNetworkSyncDisabledExchangesNothing() async throws {
        let server = try ClientTestServer()
        let client = server.client(store: memoryStore())
        await client.start()
        try await client.open("quiet", enableNetworkSync: false)
        #expect(await client.syncMode("quiet") == .realtimeSyncOff)
        do {
            try await client.open("loud", waitForLoad: .network, enableNetworkSync: false)
            Issue.record("a network wait without network sync was accepted")
        } catch {
            #expect(error.code == .invalidArgument)
        }
        await client.stop()
    }
}
