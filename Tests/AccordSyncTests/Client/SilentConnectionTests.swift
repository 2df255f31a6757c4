import Testing
import AccordCRDT
import AccordStore
import AccordTesting
@testable import AccordSync

/// A connection gone silent (half-open), through a FaultProxy that freezes it: the heartbeat
/// and the handshake budget notice it.
@Suite struct SilentConnectionTests {
    let id: DocumentID = "notes"

    @Test func pingsKeepAQuietConnectionAndAHalfOpenOneIsRebuilt() async throws {
        let server = try ClientTestServer(heartbeatSeconds: 1)
        let proxy = try FaultProxy(targetPort: server.port)
        let store = memoryStore()
        let client = server.client(store: store, url: "ws://127.0.0.1:\(proxy.port)")
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
        await proxy.stop()
        try await server.stop()
    }

    /// With the default 20 s heartbeat the silence is not noticed for a minute; the
    /// document's handshake budget reports the unanswered edit first, again on each
    /// timeout, and the edit goes through once the connection is rebuilt.
    @Test func anUnansweredEditIsASyncErrorOnEachHandshakeTimeout() async throws {
        let server = try ClientTestServer()
        let proxy = try FaultProxy(targetPort: server.port)
        let store = memoryStore()
        let client = server.client(store: store, url: "ws://127.0.0.1:\(proxy.port)", handshakeBudget: 300)
        let log = EventLog(client)
        await client.start()
        try await client.open(id)
        try await eventually("synced through the proxy") { await client.isSynced(id) }

        proxy.freezeOpenConnections()
        try await client.insert(id, "stuck ")
        try await eventually("two handshake timeouts reported", timeout: .seconds(10)) {
            await log.syncErrors(id).count >= 2
        }
        #expect(await log.syncErrors(id).allSatisfy { $0.code == .networkTimeout })
        #expect(await client.isOnline)
        #expect(try !store.isAcknowledged(id))

        // The app (or the heartbeat, a minute later) rebuilds the connection: the edit goes through.
        await client.goOffline()
        await client.goOnline()
        try await eventually("acknowledged on the new connection") { try store.isAcknowledged(id) }
        #expect(try server.storedText(id) == "stuck ")
        await client.stop()
        await proxy.stop()
        try await server.stop()
    }
}
