import AccordCRDT
import AccordStore
import AccordTesting
import Testing
@testable import AccordSync

/// A device keeps its identity across app launches: one actor key per store, and a
/// document reopened from the same store writes under the client ID it used before,
/// so neither the device's nor the server's state vector grows per launch.
@Suite(.timeLimit(.minutes(1))) struct ClientIdentityTests {
    @Test func relaunchesOfTheAppAddOneClientIDOnTheServer() async throws {
        let server = try ClientTestServer()
        let directory = try TemporaryDirectory(prefix: "accord-client-identity")
        let path = directory.file("client.sqlite")
        var actor: String?
        for launch in 0..<20 {
            let store = try DocumentStore(path: path)
            let client = server.client(store: store)
            await client.start()
            if actor == nil { actor = try client.actorID }
            #expect(try client.actorID == actor, "launch \(launch)")
            try await client.open("notes")
            try await client.insert("notes", "x")
            try await eventually("launch \(launch) synced") { try await client.isSynced("notes") && store.isAcknowledged("notes") }
            await client.stop()
            try store.close()
        }
        let stored = try server.documents.load("notes")
        #expect(stored.stateVector.clocks.count == 1)
        #expect(try stored.getText("t").string.count == 20)
    }
}
