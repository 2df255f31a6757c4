import Testing
import AccordCRDT
import AccordStore
@testable import AccordSync

/// A backlog of edits made offline, larger than the server's message burst, arrives
/// whole when the client comes back: it goes up merged, not one message per edit that
/// the server's rate limit would drop.
@Suite struct BacklogRateLimitTests {
    let id: DocumentID = "notes"

    @Test func aBacklogLargerThanTheServersBurstArrivesWhole() async throws {
        // 20 messages a second, bursts of 40: a backlog of 400 messages would lose most.
        let server = try ClientTestServer(messagesPerSecond: 20, messageBurst: 40)
        let store = memoryStore()
        let client = server.client(store: store)
        let log = EventLog(client)
        await client.start()
        try await client.open(id)
        try await eventually("synced") { await client.isSynced(id) }
        await client.goOffline()
        let count = 400
        try await client.withDocument(id) { doc in
            for i in 0..<count { try doc.getText("t").insert(i, String(i % 10)) }
        }
        try await eventually("each edit durable and unacknowledged") { try store.unacknowledgedUpdates(id).count == count }

        await client.goOnline()
        try await eventually("acknowledged") { try store.isAcknowledged(id) }
        // Acks are cumulative: what counts is the server's copy, not the client's ack.
        #expect(try server.storedText(id).count == count)
        let local = try await client.text(id)
        #expect(try server.storedText(id) == local)
        let limited = await log.events.filter {
            if case .connectionError(let error) = $0 { error.code == .rateLimited } else { false }
        }
        #expect(limited.isEmpty)
        await client.stop()
        try await server.stop()
    }
}
