import Testing
import AccordCRDT
import AccordStore
@testable import AccordSync

/// The client's heartbeat against a real server advertising a 1 s interval, through a
/// proxy that can make the connection half-open.
@Suite struct HeartbeatClientTests {
    let id: DocumentID = "notes"

    @Test func pingsKeepAQuietConnectionAndAHalfOpenOneIsRebuilt() async throws {
        let server = try ClientTestServer(heartbeatSeconds: 1)
        let proxy = try FreezingProxy(to: server.port)
        let store = memoryStore()
        let client = server.client(store: store, url: proxy.url)
        let log = EventLog(client)
        await client.start()
        try await client.open(id)
        try await eventually("synced through the proxy") { await client.isSynced(id) }

        // Quiet for longer than three intervals: pings and their pongs keep it up.
        try await Task.sleep(for: .milliseconds(3_500))
        #expect(await client.isOnline)
        #expect(await log.networkEvents.count == 1)

        // Half-open: bytes vanish both ways and no close arrives. Only silence tells.
        proxy.freezeOpenConnections()
        let frozenAt = ContinuousClock.now
        try await client.insert(id, "during ")
        try await eventually("the silent connection was declared dead", timeout: .seconds(10)) {
            await log.networkEvents.count >= 2
        }
        let noticedAfter = ContinuousClock.now - frozenAt
        // The last pong came at most one interval before the freeze: dead two to three intervals later.
        #expect(noticedAfter >= .milliseconds(1_800))
        #expect(await log.networkEvents[1] == NetworkModeEvent(mode: .auto, isOnline: false, reason: .connectivityLost))

        // A new connection through the proxy carries the edit the frozen one swallowed.
        try await eventually("reconnected and acknowledged") {
            let online = await client.isOnline
            return try online && store.isAcknowledged(id)
        }
        #expect(try server.storedText(id) == "during ")
        await client.stop()
        proxy.stop()
        try await server.stop()
    }
}
