import Testing
import AccordCRDT
import AccordStore
import AccordServer
import AccordTesting
@testable import AccordSync

/// A reader's answers to the server's step 1 carry its delete set, so they are not
/// empty once the document has deletions; they write nothing and must not park it.
@Suite struct ReaderResyncTests {
    let id: DocumentID = "notes"

    @Test func aReaderReconnectingAndResyncingADocumentWithDeletionsIsNotRefused() async throws {
        let server = try ClientTestServer()
        try server.share(id, with: "bob", as: .reader)
        let writer = server.client("alice", store: memoryStore())
        let proxy = try FaultProxy(targetPort: server.port)
        let reader = AccordClient(
            serverURL: "ws://127.0.0.1:\(proxy.port)", store: memoryStore(),
            reconnect: ReconnectPolicy(initialDelay: 50, maxDelay: 400), resyncInterval: 300,
            tokenProvider: { [token = server.token("bob")] in token })
        let log = EventLog(reader)
        for client in [writer, reader] {
            await client.start()
            try await client.open(id)
        }
        try await writer.withDocument(id) { doc in
            try doc.getText("t").insert(0, "hello world")
            try doc.getText("t").delete(0, 6)
        }
        try await eventually("the reader has the text") { try await reader.text(id) == "world" }

        // A new connection: the server's step 1 on join is answered with the delete set.
        proxy.cutAll()
        try await eventually("reconnected and synced") {
            let synced = await reader.isSynced(id)
            return await log.networkEvents.count >= 3 && synced
        }
        // And each resync (every 0.3 s here) gets the server's step 1 again.
        try await Task.sleep(for: .milliseconds(1_000))
        let refusals = await log.events.filter {
            if case .document(_, .writeRejected) = $0 { true } else { false }
        }
        #expect(refusals.isEmpty)
        #expect(await reader.isSynced(id))
        try await writer.withDocument(id) { doc in try doc.getText("t").insert(5, "!") }
        try await eventually("the reader still receives") { try await reader.text(id) == "world!" }
        await writer.stop()
        await reader.stop()
        await proxy.stop()
        try await server.stop()
    }
}
