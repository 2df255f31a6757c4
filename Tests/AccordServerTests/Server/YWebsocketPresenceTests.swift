import AccordCRDT
import AccordStore
import Foundation
import Testing
@testable import AccordServer

/// Presence among stock y-websocket clients (``YWebsocketTestClient``: echoes every
/// awareness update, reconnects with the same client id) through the server's
/// `/v1/sync/{id}`, as in issue 13.
@Suite(.timeLimit(.minutes(2)))
struct YWebsocketPresenceTests {
    static func state(_ index: Int, round: Int) -> AnyValue {
        .object(["user": .string("client-\(index)"), "round": .int(Int64(round))])
    }

    /// Every client's view of every other client's state is `expected` (no one else).
    static func allSee(_ clients: [YWebsocketTestClient], _ expected: [ClientID: AnyValue]) -> Bool {
        clients.allSatisfy { client in
            client.states.filter { $0.key != client.clientID } == expected.filter { $0.key != client.clientID }
        }
    }

    @Test func fiveEchoingClientsSeeEachOthersPresenceThroughJoinsEditsAndAReconnect() async throws {
        let server = try TestServer()
        let token = server.token("ada")
        let ids: [ClientID] = [1101, 2202, 3303, 4404, 5505]
        func connect(_ index: Int) async throws -> YWebsocketTestClient {
            try await YWebsocketTestClient.connect(port: server.port, document: "room", token: token, clientID: ids[index])
        }
        // Three join at once, two later, one by one.
        var clients = try await withThrowingTaskGroup(of: (Int, YWebsocketTestClient).self) { group in
            for index in 0..<3 { group.addTask { (index, try await connect(index)) } }
            return try await group.reduce(into: []) { $0.append($1) }.sorted { $0.0 < $1.0 }.map(\.1)
        }
        for index in 3..<5 {
            try await Task.sleep(for: .milliseconds(50))
            clients.append(try await connect(index))
        }
        var expected: [ClientID: AnyValue] = [:]
        for (index, client) in clients.enumerated() {
            client.setState(Self.state(index, round: 1))
            expected[client.clientID] = Self.state(index, round: 1)
            try client.edit { doc in try doc.getText("t").insert(0, "c\(index);") }
        }
        try await eventually("everyone sees everyone's first state", timeout: .seconds(1)) { Self.allSee(clients, expected) }

        // Everyone changes state; the echoes of each change must not get in the way.
        for (index, client) in clients.enumerated() {
            client.setState(Self.state(index, round: 2))
            expected[client.clientID] = Self.state(index, round: 2)
        }
        try await eventually("everyone sees everyone's second state", timeout: .seconds(1)) { Self.allSee(clients, expected) }

        // Client 2's socket drops: its removal reaches everyone.
        let dropped = clients[2]
        dropped.drop()
        expected[dropped.clientID] = nil
        let others = clients.filter { $0 !== dropped }
        try await eventually("the removal reached everyone", timeout: .seconds(1)) {
            others.allSatisfy { $0.states[dropped.clientID] == nil }
        }
        // It reconnects by itself with the same client id and its old clock: the others
        // see it again (the server asks it to re-announce) and it sees them (the server
        // asks them to re-announce, since it ignores their old clocks), then its new state.
        expected[dropped.clientID] = Self.state(2, round: 2)
        try await eventually("the reconnected client and the others see each other again", timeout: .seconds(1)) {
            Self.allSee(clients, expected)
        }
        dropped.setState(Self.state(2, round: 3))
        expected[dropped.clientID] = Self.state(2, round: 3)
        try await eventually("everyone sees the reconnected client's new state", timeout: .seconds(1)) { Self.allSee(clients, expected) }
        try dropped.edit { doc in try doc.getText("t").insert(0, "back;") }

        // Documents converge, and no client ever received a frame it cannot parse.
        try await eventually("documents converge", timeout: .seconds(2)) {
            let texts = Set(clients.map(\.text))
            return texts.count == 1 && texts.first!.count == "c0;c1;c2;c3;c4;back;".count
        }
        for client in clients {
            #expect(client.foreignFrames.isEmpty, "client \(client.clientID) received \(client.foreignFrames.count) non-y-protocols frames")
            #expect(client.auth.isEmpty, "client \(client.clientID) was refused: \(client.auth)")
        }
        // Errors the server counted (none of the echoes is one).
        #expect(server.server.metrics.snapshot.errors.isEmpty, "\(server.server.metrics.snapshot.errors)")

        // A client that leaves for good is removed for everyone.
        clients[4].stop()
        try await eventually("the departure reached everyone", timeout: .seconds(1)) {
            clients.dropLast().allSatisfy { $0.states[ids[4]] == nil }
        }
        clients.forEach { $0.stop() }
        try await server.stop()
    }
}
