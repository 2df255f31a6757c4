import Testing
import AccordCRDT
import AccordStore
import AccordServer
@testable import AccordSync

/// A local-only document never reaches the server, in this session or a later one,
/// and options that would need the server are refused.
@Suite(.timeLimit(.minutes(1))) struct LocalOnlyDocumentTests {
    @Test func theServerNeverSeesAByteAndNetworkOptionsAreRefused() async throws {
        let server = try ClientTestServer()
        let store = memoryStore()
        let client = server.client(store: store)
        await client.start()
        try await client.open("shared")
        let privateID = try await client.create("diary", localOnly: true)
        try await client.withDocument(privateID) { try $0.getText("t").insert(0, "secret") }
        try await client.insert("shared", "public")
        try await eventually("the shared document synced") { (try? server.storedText("shared")) == "public" }

        for attempt: @Sendable () async throws -> Void in [
            { try await client.open("diary", waitForLoad: .network) },
            { try await client.setSyncMode("diary", .manual) },
            { try await client.sync("diary") },
            { try await client.resync("diary", discardLocalChanges: true) },
            { try await client.create("other", localOnly: true, syncMode: .polling) },
        ] {
            do {
                try await attempt()
                Issue.record("a network option was accepted for a local-only document")
            } catch let error as AccordError {
                #expect(error.code == .localOnlyUnsupportedOption)
            }
        }
        // Its content exists nowhere else: closing never evicts it, evict needs force.
        #expect(await client.close("diary", evictLocal: true) == CloseResult(evicted: false))
        #expect(try store.metadata("diary").isResident)
        do {
            try await client.evict("diary")
            Issue.record("evicted a local-only document without force")
        } catch {
            #expect(error.code == .localOnlyUnsupportedOption)
        }
        #expect(try store.metadata("diary").isResident)
        await client.stop()

        // A later session over the same store: still never sent.
        let later = server.client(store: store)
        await later.start()
        try await later.open("diary")
        try await later.open("shared")
        try await later.withDocument("diary") { try $0.getText("t").insert(0, "more ") }
        try await eventually("the later client is synced") { await later.isSynced("shared") }
        #expect(try await later.text("diary") == "more secret")
        await later.stop()
        #expect(try !server.documents.contains("diary"))
        #expect(try server.documentDirectory.access.access("diary") == nil)
    }
}
