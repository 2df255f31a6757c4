import Foundation
import Testing
import AccordCRDT
import AccordNet
import AccordTesting
@testable import AccordServer

/// `/v1/sync` channels across a cluster: clients attached to one key through different
/// nodes count each other, hear each other's broadcasts exactly once, and stop counting
/// a client that detached, closed, or whose node stopped.
@Suite(.serialized) struct ClusterChannelTests {
    @Test func channelsJoinedOnDifferentNodesReachEachOther() async throws {
        var cluster = try ClusterServeTests.Cluster()
        defer { cluster.drop() }
        try cluster.start(0)
        try cluster.start(1)
        let pool = try WebSocketClientPool()
        let token = cluster.token
        let onA = try await ChannelTestClient.connect("a", pool: pool, port: cluster.nodes[0].port, token: token)
        let onB = try await ChannelTestClient.connect("b", pool: pool, port: cluster.nodes[1].port, token: token)
        let alsoB = try await ChannelTestClient.connect("b2", pool: pool, port: cluster.nodes[1].port, token: token)

        onA.attach("room.lobby")
        try await eventually("a counts itself") { onA.count("room.lobby") == 1 }
        onB.attach("room.lobby")
        try await eventually("both nodes count both", timeout: .seconds(10)) {
            onA.count("room.lobby") == 2 && onB.count("room.lobby") == 2
        }
        // A parent key counts the subtree across nodes too.
        alsoB.attach("room")
        try await eventually("the parent counts a and b under it, and b2 at it") { alsoB.count("room") == 3 }

        onA.broadcast("room.lobby", topic: "cursor", payload: #"{"x":1}"#)
        try await eventually("b hears a's broadcast") { !onB.broadcasts.isEmpty }
        try await Task.sleep(for: .milliseconds(300))
        #expect(onB.broadcasts == [.broadcast(key: ChannelKey(rawValue: "room.lobby")!, topic: "cursor", payload: #"{"x":1}"#, sender: "dev")])
        #expect(onA.broadcasts.isEmpty, "never echoed to the sender")
        #expect(alsoB.broadcasts.isEmpty, "only members at the key")
        onB.broadcast("room.lobby", topic: "cursor", payload: #"{"x":2}"#)
        try await eventually("a hears b's broadcast") { onA.broadcasts.count == 1 }

        onB.detach("room.lobby")
        try await eventually("a sees b leave") { onA.count("room.lobby") == 1 }
        onB.attach("room.lobby")
        try await eventually("a sees b back") { onA.count("room.lobby") == 2 }
        onB.close()
        try await eventually("a sees b's connection close") { onA.count("room.lobby") == 1 }

        // A node that stops takes its clients out of the others' counts.
        alsoB.attach("room.lobby")
        try await eventually("b2 counted on A") { onA.count("room.lobby") == 2 }
        _ = cluster.nodes[1].terminate()
        try await eventually("A stops counting B's client", timeout: .seconds(10)) { onA.count("room.lobby") == 1 }
        onA.close()
    }
}
