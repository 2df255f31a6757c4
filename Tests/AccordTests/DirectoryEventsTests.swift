import Foundation
import Testing
import Accord
import AccordServer
import AccordTesting

/// `PermissionEvent` and `DocumentMetadataChangedEvent` as an app sees them: pushed over
/// the client's `/v1/sync` connection within a second of another user's change, the
/// metadata cache kept current, deleted and revoked documents dropped, a create's title
/// reaching the server, `syncMetadata` for a device that was offline, and `logout`.
@Suite(.timeLimit(.minutes(1))) struct DirectoryEventsTests {
    let directory: TemporaryDirectory
    let tokens: TokenAuthority
    let server: AccordServer
    let serverStore: DocumentStore

    init() throws {
        directory = try TemporaryDirectory(prefix: "accord-directory-events")
        tokens = try TokenAuthority(secret: Array("accord-directory-events-secret-0123456789".utf8))
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        serverStore = try DocumentStore(path: directory.file("server.sqlite"))
        server = try AccordServer(configuration: configuration, documents: serverStore, tokens: tokens)
    }

    private func client(_ user: String, device: String = UUID().uuidString) throws -> AccordClient {
        let token = tokens.mint(subject: user, ttl: 3600)
        return try AccordClient(
            serverURL: "ws://127.0.0.1:\(server.port)", storePath: directory.file("\(user)-\(device).sqlite")
        ) { _ in token }
    }

    /// Started and connected.
    private func online(_ client: AccordClient) async throws {
        let connected = client.expectEvent(NetworkModeEvent.self) { $0.isOnline }
        await client.start()
        _ = try await connected.value(timeout: .seconds(10))
    }

    /// A document Olivia created on her device, synced to the server.
    private func created(_ olivia: AccordClient, _ id: DocumentID, title: String = "Notes") async throws {
        let synced = olivia.expectEvent(DocumentSyncStateChangedEvent.self) { $0.documentID == id && $0.state == .synced }
        _ = try await olivia.documents.create(id, title: title, tags: ["team"], metadata: .object(["color": .string("red")]))
        _ = try await synced.value()
    }

    @Test func aCreateCarriesTitleTagsAndMetadataToTheServer() async throws {
        let olivia = try client("olivia")
        try await online(olivia)
        try await created(olivia, "trip", title: "Trip")
        let info = try await olivia.documents.get("trip")
        #expect(info.title == "Trip" && info.tags == ["team"] && info.owner == "olivia")
        #expect(info.metadata == .object(["color": .string("red")]))
        // The server's creation came back as an event: the cache holds the entry.
        try await waitUntilTrue { (try? await olivia.cachedDocument("trip"))?.title == "Trip" }
        #expect(try await olivia.cachedDocument("trip")?.permission == .owner)

        let tooLarge = await #expect(throws: AccordError.self) {
            _ = try await olivia.documents.create("big", metadata: .string(String(repeating: "x", count: 5000)))
        }
        #expect(tooLarge?.code == ErrorCode(rawValue: "METADATA_TOO_LARGE"))
        let badTag = await #expect(throws: AccordError.self) { _ = try await olivia.documents.create("tag", tags: [""]) }
        #expect(badTag?.code == .invalidArgument)
        #expect(try !olivia.store.contains("big") && !olivia.store.contains("tag"))
        await olivia.stop()
    }

    @Test func aConnectedClientSeesAGrantATitleChangeAndARevokeWithinASecond() async throws {
        let olivia = try client("olivia")
        let rita = try client("rita")
        try await online(olivia)
        try await online(rita)
        try await created(olivia, "plans")

        // Rita has nothing open: the grant reaches her anyway.
        let granted = rita.expectEvent(PermissionEvent.self) { $0.documentID == "plans" }
        let entry = rita.expectEvent(DocumentMetadataChangedEvent.self) { $0.documentID == "plans" }
        try await olivia.documents.updatePermissions("plans", .user("rita", permission: .reader))
        let permission = try await granted.value(timeout: .seconds(1))
        #expect(permission.permission == .reader && permission.previous == nil && permission.cause == "grant")
        let shared = try await entry.value(timeout: .seconds(1))
        #expect(shared.action == .updated && shared.document?.title == "Notes" && shared.document?.permission == .reader)
        #expect(try await rita.cachedDocument("plans")?.permission == .reader)

        // She opens it; a title change arrives as an entry in her cache (the store's own
        // title stays the device's: layers above name documents by it).
        _ = try await rita.documents.open("plans", waitForLoad: .network)
        let renamed = rita.expectEvent(DocumentMetadataChangedEvent.self) { $0.document?.title == "Plans" }
        try await olivia.documents.update("plans", title: "Plans")
        _ = try await renamed.value(timeout: .seconds(1))
        #expect(try await rita.cachedDocument("plans")?.title == "Plans")

        // Revoked: the event, then her copy is gone.
        let revoked = rita.expectEvent(PermissionEvent.self) { $0.permission == nil }
        let dropped = rita.expectEvent(DocumentMetadataChangedEvent.self) { $0.action == .deleted }
        try await olivia.documents.removePermission("plans", .userID("rita"))
        #expect(try await revoked.value(timeout: .seconds(1)).previous == .reader)
        _ = try await dropped.value(timeout: .seconds(1))
        #expect(try !rita.store.contains("plans"))
        #expect(await rita.openDocuments.isEmpty)
        #expect(try await rita.cachedDocument("plans") == nil)
        await olivia.stop()
        await rita.stop()
    }

    @Test func editsRefusedToAReaderGoUpOnceTheyAreRaisedToReadWrite() async throws {
        let olivia = try client("olivia")
        let rita = try client("rita")
        try await online(olivia)
        try await online(rita)
        try await created(olivia, "draft")
        try await olivia.documents.updatePermissions("draft", .user("rita", permission: .reader))
        let document = try await rita.documents.open("draft", waitForLoad: .network)
        let refused = rita.expectEvent(WriteRejectedEvent.self)
        try await document.edit { doc in try doc.getText("body").insert(0, "rita's line") }
        _ = try await refused.value()

        let raised = rita.expectEvent(PermissionEvent.self) { $0.permission == .readWrite }
        try await olivia.documents.updatePermissions("draft", .user("rita", permission: .readWrite))
        _ = try await raised.value(timeout: .seconds(1))
        // No resync call: the refused edit goes up by itself and is stored.
        try await waitUntilTrue {
            (try? serverStore.flush()) != nil && (try? serverStore.load("draft").getText("body").string) == "rita's line"
        }
        try await waitUntilTrue { await rita.writeRefusal("draft") == nil }
        await olivia.stop()
        await rita.stop()
    }

    @Test func otherDevicesDropADeletedDocumentWithinASecond() async throws {
        let laptop = try client("olivia", device: "laptop")
        let phone = try client("olivia", device: "phone")
        try await online(laptop)
        try await online(phone)
        try await created(laptop, "journal")
        _ = try await phone.documents.open("journal", waitForLoad: .network)
        try await laptop.documents.update("journal", title: "Journal")

        let deleted = phone.expectEvent(DocumentMetadataChangedEvent.self) { $0.action == .deleted }
        let lost = phone.expectEvent(PermissionEvent.self) { $0.cause == "delete" }
        try await laptop.documents.delete("journal")
        _ = try await deleted.value(timeout: .seconds(1))
        #expect(try await lost.value(timeout: .seconds(1)).previous == .owner)
        #expect(try !phone.store.contains("journal"))
        #expect(try !laptop.store.contains("journal"))
        await laptop.stop()
        await phone.stop()
    }

    @Test func aDeviceThatWasOfflineCatchesUpThroughSyncMetadata() async throws {
        let olivia = try client("olivia")
        let rita = try client("rita", device: "tablet")
        try await online(olivia)
        try await online(rita)
        try await created(olivia, "kept")
        try await created(olivia, "gone")
        for id: DocumentID in ["kept", "gone"] {
            let told = rita.expectEvent(DocumentMetadataChangedEvent.self) { $0.documentID == id }
            try await olivia.documents.updatePermissions(id, .user("rita", permission: .readWrite))
            _ = try await told.value(timeout: .seconds(1))
        }
        _ = try await rita.documents.open("gone", waitForLoad: .network)
        await rita.close("gone")
        await rita.stop()

        // While Rita's tablet is off: a rename, a delete, a new share.
        try await olivia.documents.update("kept", title: "Kept")
        try await olivia.documents.delete("gone")
        try await created(olivia, "new")
        try await olivia.documents.updatePermissions("new", .user("rita", permission: .reader))

        let tablet = try client("rita", device: "tablet")
        let events = tablet.stream(for: DocumentMetadataChangedEvent.self)
        try await tablet.syncMetadata()
        #expect(try await tablet.cachedDocument("kept")?.title == "Kept")
        #expect(try await tablet.cachedDocument("new")?.permission == .reader)
        #expect(try await tablet.cachedDocument("gone") == nil)
        #expect(try !tablet.store.contains("gone"))
        var seen: [DocumentID: DocumentMetadataChangedEvent.Action] = [:]
        for await event in events {
            seen[event.documentID] = event.action
            if seen.count == 3 { break }
        }
        #expect(seen == ["kept": .updated, "new": .updated, "gone": .deleted])
        // Nothing changed since: a second run tells nothing new.
        let quiet = tablet.expectEvent(DocumentMetadataChangedEvent.self)
        try await tablet.syncMetadata()
        await #expect(throws: AccordError.self) { _ = try await quiet.value(timeout: .milliseconds(200)) }
        await olivia.stop()
        await tablet.stop()
    }

    @Test func evictingLocallyIsAnEventAndLogoutWipesTheStore() async throws {
        let olivia = try client("olivia")
        try await online(olivia)
        try await created(olivia, "draft")
        try await waitUntilTrue { (try? olivia.store.hasUnacknowledgedWrites("draft")) == false }
        let evicted = olivia.expectEvent(DocumentMetadataChangedEvent.self) { $0.action == .evicted }
        try await olivia.documents.evict("draft")
        #expect(try await evicted.value(timeout: .seconds(1)).documentID == "draft")

        _ = try await olivia.documents.create("local", localOnly: true)
        try await olivia.logout(wipeLocal: true)
        #expect(try olivia.store.documents().isEmpty)
        #expect(try await olivia.cachedDocuments().isEmpty)
        // Stopped: nothing more can be opened.
        await #expect(throws: AccordError.self) { _ = try await olivia.documents.create("after") }

        let keeper = try client("olivia")
        _ = try await keeper.documents.create("mine", localOnly: true)
        try await keeper.logout(wipeLocal: false)
        #expect(try keeper.store.contains("mine"))
    }

    private func waitUntilTrue(_ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { throw AccordError(.unavailable, "timed out") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
