import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing
@testable import AccordServer

/// One user cannot take the server's memory or store for themselves: connections per
/// user, documents per connection, documents created per hour and partially received
/// bytes are capped, each refusal coded and counted in `/metrics`.
@Suite(.timeLimit(.minutes(2)))
struct UserLimitsTests {
    func refusals(_ server: TestServer, _ limit: ServerLimit) -> Int {
        server.server.metrics.snapshot.limitRefusals[limit] ?? 0
    }

    @Test func connectionsPerUserAreCapped() async throws {
        let server = try TestServer { $0.maxConnectionsPerUser = 3 }
        var held: [SyncTestClient] = []
        for _ in 0..<3 { held.append(try await server.client("ada", document: nil)) }
        try await server.waitForConnections(3)
        let fourth = try await server.client("ada", document: "doc")
        try await eventually("refused") { fourth.closed != nil }
        #expect(fourth.closed?.code == 4429)
        #expect(fourth.errorCodes == ["TOO_MANY_CONNECTIONS"])
        #expect(try !server.documents.contains("doc"))
        // Another user is not affected, and closing one frees a place.
        let bob = try await server.client("bob", document: "bobs")
        try await eventually("bob joined") { (try? server.documents.contains("bobs")) == true }
        held[0].close()
        try await server.waitForConnections(3)
        let again = try await server.client("ada", document: "doc")
        try await eventually("joined") { (try? server.documents.contains("doc")) == true }
        #expect(again.closed == nil && bob.closed == nil)
        #expect(refusals(server, .connectionsPerUser) == 1)
        #expect(server.server.metrics.render().contains(#"accord_limit_refusals_total{limit="connections_per_user"} 1"#))
        try await server.stop()
    }

    @Test func roomsPerConnectionAreCapped() async throws {
        let server = try TestServer { $0.maxRoomsPerConnection = 2 }
        let ada = try await server.client("ada", document: nil)
        ada.open("a")
        ada.open("b")
        ada.open("c")
        try await eventually("refused") { !ada.errors.isEmpty }
        #expect(ada.errors.map(\.code) == ["TOO_MANY_ROOMS"])
        #expect(ada.errors.first?.document == "c")
        #expect(try !server.documents.contains("c"))
        try ada.edit("b") { try $0.getText("t").insert(0, "still syncing") }
        try await eventually("stored") { (try? server.storedState("b").text) == "still syncing" }
        #expect(ada.closed == nil)
        #expect(refusals(server, .roomsPerConnection) == 1)
        try await server.stop()
    }

    @Test func documentsCreatedPerUserPerHourAreCapped() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_700_000_000))
        let read = clock.read
        let server = try TestServer {
            $0.maxDocumentsCreatedPerUserPerHour = 3
            $0.now = { UInt64(read().timeIntervalSince1970 * 1000) }
        }
        for id in ["d1", "d2"] {
            #expect(try await server.request("POST", "/v1/documents", user: "ada", json: ["id": id]).status == 201)
        }
        // A refused create (the id is taken) does not count.
        #expect(try await server.request("POST", "/v1/documents", user: "ada", json: ["id": "d1"]).status == 409)
        #expect(try await server.request("POST", "/v1/documents", user: "ada", json: ["id": "d3"]).status == 201)
        let before = try server.documents.documents().map(\.id)
        let refused = try await server.request("POST", "/v1/documents", user: "ada", json: ["id": "d4"])
        #expect(refused.status == 429)
        #expect(refused.errorCode == "TOO_MANY_DOCUMENTS")
        // Create-on-connect draws on the same quota.
        // (opens: false: the join at connect is the only one, so one refusal is counted.)
        let viaSync = try await SyncTestClient.connect(
            port: server.port, document: "d5", token: server.token("ada"), opens: false)
        try await eventually("refused") { viaSync.closed != nil }
        #expect(viaSync.closed?.code == 4429)
        #expect(viaSync.errorCodes == ["TOO_MANY_DOCUMENTS"])
        #expect(try server.documents.documents().map(\.id) == before)
        // Opening an existing document is no creation, and other users have their own quota.
        let existing = try await server.client("ada", document: "d1")
        #expect(try await server.request("POST", "/v1/documents", user: "bob", json: [:]).status == 201)
        // The bucket refills at 3 per hour: one more after 20 minutes.
        clock.advance(by: 20 * 60)
        #expect(try await server.request("POST", "/v1/documents", user: "ada", json: ["id": "d4"]).status == 201)
        #expect(try await server.request("POST", "/v1/documents", user: "ada", json: ["id": "d6"]).status == 429)
        #expect(existing.closed == nil)
        #expect(refusals(server, .documentsPerUserPerHour) == 3)
        try await server.stop()
    }

    /// The finding: connections of one user each holding most of a large message. The
    /// user's partial bytes together stay under the cap; other users are unaffected.
    @Test func partiallyReceivedBytesPerUserAreCapped() async throws {
        let server = try TestServer {
            $0.maxFrameBytes = 1 << 20
            $0.maxPartialBytesPerUser = 1_500_000
        }
        let token = server.token("ada")
        let first = try PartialMessageSocket(port: server.port, path: "/v1/sync?token=\(token)")
        let second = try PartialMessageSocket(port: server.port, path: "/v1/sync?token=\(token)")
        try await server.waitForConnections(2)
        // The first holds 900,000 bytes of a 1,000,000-byte message and waits. The
        // pause lets the server read them before the second's bytes (it may drain one
        // socket before the other, and nothing observable says it has read them).
        try first.startMessage(length: 1_000_000)
        try first.write([UInt8](repeating: 0, count: 900_000))
        try await Task.sleep(for: .seconds(1))
        // The second's message would take the user past 1.5 MB: it is dropped whole.
        try second.startMessage(length: 1_000_000)
        try second.write([UInt8](repeating: 0, count: 1_000_000))
        try await eventually("refused") { second.errorCodes().contains("QUOTA_EXCEEDED") }
        #expect(refusals(server, .partialBytesPerUser) == 1)
        // The first's message, once complete, is read: zeros, which do not decode, so
        // MALFORMED_MESSAGE proves it (and closes that connection).
        try first.write([UInt8](repeating: 0, count: 100_000))
        try await eventually("first read") { first.errorCodes().contains("MALFORMED_MESSAGE") }
        let refused = second
        #expect(refused.errorCodes() == ["QUOTA_EXCEEDED"])
        // The refused connection stays, and with the budget free again its next
        // message is read.
        try await server.waitForConnections(1)
        try refused.startMessage(length: 1_000_000)
        try refused.write([UInt8](repeating: 0, count: 1_000_000))
        try await eventually("read") { refused.errorCodes().contains("MALFORMED_MESSAGE") }
        // Another user has a budget of its own.
        let bob = try PartialMessageSocket(port: server.port, path: "/v1/sync?token=\(server.token("bob"))")
        try bob.startMessage(length: 1_000_000)
        try bob.write([UInt8](repeating: 0, count: 1_000_000))
        try await eventually("bob's message read") { bob.errorCodes().contains("MALFORMED_MESSAGE") }
        #expect(refusals(server, .partialBytesPerUser) == 1)
        try await server.stop()
    }
}
