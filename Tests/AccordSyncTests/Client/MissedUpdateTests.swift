import Testing
import AccordCRDT
import AccordStore
import AccordTesting
@testable import AccordSync

/// A live update lost on a connection that stays up (a FaultProxy drops it): the client
/// asks for it when a later update stays pending, or at its next periodic resync when
/// nothing follows it.
@Suite(.serialized) struct MissedUpdateTests {
    let id: DocumentID = "notes"

    /// `writer` direct to the server, `reader` through `proxy`, both synced on `id`.
    private func setUp(
        _ server: ClientTestServer, readerResync: UInt64?
    ) async throws -> (writer: AccordClient, reader: AccordClient, proxy: FaultProxy) {
        let proxy = try FaultProxy(targetPort: server.port)
        let writer = server.client(store: memoryStore())
        let reader = AccordClient(
            serverURL: "ws://127.0.0.1:\(proxy.port)", store: memoryStore(),
            reconnect: ReconnectPolicy(initialDelay: 50, maxDelay: 400), resyncInterval: readerResync,
            tokenProvider: { [token = server.token("alice")] in token })
        for client in [writer, reader] {
            await client.start()
            try await client.open(id)
        }
        try await eventually("both synced") {
            let (a, b) = (await writer.isSynced(id), await reader.isSynced(id))
            return a && b
        }
        return (writer, reader, proxy)
    }

    /// The writer's next edit reaches the server but not the reader.
    private func editLostOnTheWay(_ text: String, by writer: AccordClient, to proxy: FaultProxy) async throws {
        let dropped = proxy.counters.serverToClient.messagesDropped
        proxy.setFaults(.init(dropProbability: 1), .serverToClient)
        try await writer.withDocument(id) { doc in
            let root = try doc.getText("t")
            try root.insert(root.length, text)
        }
        try await eventually("the update was dropped") { proxy.counters.serverToClient.messagesDropped > dropped }
        proxy.setFaults(.none, .serverToClient)
    }

    @Test func anUpdateLeftPendingMakesTheClientAskForWhatItMissed() async throws {
        let server = try ClientTestServer()
        let (writer, reader, proxy) = try await setUp(server, readerResync: nil)
        try await editLostOnTheWay("one ", by: writer, to: proxy)
        // The next edit builds on the lost one: the reader cannot integrate it alone.
        try await writer.withDocument(id) { doc in
            let root = try doc.getText("t")
            try root.insert(root.length, "two")
        }
        try await eventually("the reader caught up", timeout: .seconds(5)) { try await reader.text(id) == "one two" }
        await writer.stop()
        await reader.stop()
        await proxy.stop()
        try await server.stop()
    }

    @Test func aLostLastUpdateArrivesWithThePeriodicResync() async throws {
        let server = try ClientTestServer()
        let (writer, reader, proxy) = try await setUp(server, readerResync: 500)
        try await editLostOnTheWay("last", by: writer, to: proxy)
        let lost = ContinuousClock.now
        // Nothing follows it, so nothing is pending: only the resync (0.5 s plus a phase
        // of up to 0.25 s after the connection's first round) brings it.
        try await eventually("the reader caught up", timeout: .seconds(5)) { try await reader.text(id) == "last" }
        #expect(ContinuousClock.now - lost < .seconds(2))
        await writer.stop()
        await reader.stop()
        await proxy.stop()
        try await server.stop()
    }

    /// The other way: the server never got a deletion, and the ack of the next update
    /// (cumulative) told the client it had. The resync's round gets the server's step 1
    /// back, and the client's answer carries the deletion.
    @Test func aDeletionTheServerNeverGotIsRepairedAtTheNextResync() async throws {
        let server = try ClientTestServer()
        let proxy = try FaultProxy(targetPort: server.port)
        let store = memoryStore()
        let client = AccordClient(
            serverURL: "ws://127.0.0.1:\(proxy.port)", store: store,
            // Long enough that no resync comes between the first sync and the check below.
            reconnect: ReconnectPolicy(initialDelay: 50, maxDelay: 400), resyncInterval: 2_000,
            tokenProvider: { [token = server.token("alice")] in token })
        await client.start()
        try await client.open(id)
        try await client.insert(id, "ab")
        try await eventually("synced") { try await client.isSynced(id) && store.isAcknowledged(id) }

        let dropped = proxy.counters.clientToServer.messagesDropped
        proxy.setFaults(.init(dropProbability: 1), .clientToServer)
        try await client.withDocument(id) { try $0.getText("t").delete(0, 1) }
        try await eventually("the deletion was dropped") { proxy.counters.clientToServer.messagesDropped > dropped }
        proxy.setFaults(.none, .clientToServer)
        try await client.withDocument(id) { doc in try doc.getText("t").insert(1, "c") }
        try await eventually("acknowledged, the lost deletion included") { try store.isAcknowledged(id) }
        #expect(try server.storedText(id) != "bc")

        try await eventually("the server has the deletion", timeout: .seconds(5)) { try server.storedText(id) == "bc" }
        await client.stop()
        await proxy.stop()
        try await server.stop()
    }

    @Test func withoutAResyncALostLastUpdateStaysLost() async throws {
        let server = try ClientTestServer()
        let (writer, reader, proxy) = try await setUp(server, readerResync: nil)
        try await editLostOnTheWay("last", by: writer, to: proxy)
        try await Task.sleep(for: .milliseconds(1_500))
        // The control for the test above: no other mechanism fetches it on a live connection.
        #expect(try await reader.text(id) == "")
        #expect(await reader.isSynced(id))
        await writer.stop()
        await reader.stop()
        await proxy.stop()
        try await server.stop()
    }
}
