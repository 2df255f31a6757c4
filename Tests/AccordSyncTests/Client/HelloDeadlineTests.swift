import Testing
import AccordCRDT
import AccordStore
import AccordTesting
@testable import AccordSync

/// A connection whose hello never arrives is rebuilt after the handshake budget, even
/// though pings keep being answered (found by the fault soak: a dropped hello left a
/// client connected and offline for good).
@Suite struct HelloDeadlineTests {
    let id: DocumentID = "notes"

    @Test func aConnectionWithoutHelloIsDroppedAfterTheHandshakeBudgetAndRebuilt() async throws {
        let server = try ClientTestServer(heartbeatSeconds: 1)
        let proxy = try FaultProxy(targetPort: server.port)
        // Everything the server sends is dropped: the first connection's hello is lost.
        proxy.setFaults(.init(dropProbability: 1), .serverToClient)
        let client = server.client(store: memoryStore(), url: "ws://127.0.0.1:\(proxy.port)", handshakeBudget: 500)
        await client.start()
        try await client.open(id)
        try await eventually("the hello was dropped") { proxy.counters.serverToClient.messagesDropped >= 1 }
        proxy.setFaults(.none, .serverToClient)
        let lost = ContinuousClock.now

        // Pings still go through (control frames are never dropped): only the deadline helps.
        try await eventually("online on a new connection", timeout: .seconds(5)) { await client.isOnline }
        #expect(ContinuousClock.now - lost >= .milliseconds(300))
        #expect(proxy.counters.connectionsAccepted == 2)
        try await eventually("synced") { await client.isSynced(id) }
        await client.stop()
        await proxy.stop()
        try await server.stop()
    }
}
