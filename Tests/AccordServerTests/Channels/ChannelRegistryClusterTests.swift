import Testing
import AccordCRDT
import AccordNet
@testable import AccordServer

/// The registry's share of a cluster: other nodes' announced counts add to this node's,
/// a change of the total reaches the realtime members here, a silent node's counts
/// expire, and another node's broadcast reaches every realtime member at its key.
@Suite struct ChannelRegistryClusterTests {
    let lobby = ChannelKey(rawValue: "room.lobby")!
    let room = ChannelKey(rawValue: "room")!

    @Test func remoteCountsAddUpAndExpire() {
        var registry = ChannelRegistry()
        let here = ConnectionID(1)
        _ = registry.attach(here, at: lobby, realtime: true)
        #expect(registry.takeChangedKeys() == [ChannelCount(key: room, sessions: 1), ChannelCount(key: lobby, sessions: 1)])
        #expect(registry.takeChangedKeys().isEmpty, "taken once")

        // Node b has two at the lobby: the member here hears the total of three.
        let told = registry.remote("b", counts: [ChannelCount(key: lobby, sessions: 2), ChannelCount(key: room, sessions: 2)], now: 1_000)
        #expect(told.contains(ChannelRegistry.Delivery(message: .count(key: lobby, sessions: 3), recipients: [here])))
        #expect(registry.sessionCount(lobby) == 3)
        #expect(registry.sessionCount(room) == 3)
        #expect(registry.localCounts.allSatisfy { $0.sessions == 1 }, "only this node's own are announced")
        // The same counts again change nothing and tell nobody.
        #expect(registry.remote("b", counts: [ChannelCount(key: lobby, sessions: 2)], now: 2_000).isEmpty)

        // Node b falls silent: 30 s after it was last heard, its counts go.
        #expect(registry.expireRemote(now: 2_000 + ChannelRegistry.remoteExpiryMilliseconds).isEmpty)
        let expired = registry.expireRemote(now: 2_001 + ChannelRegistry.remoteExpiryMilliseconds)
        #expect(expired.contains(ChannelRegistry.Delivery(message: .count(key: lobby, sessions: 1), recipients: [here])))
        #expect(registry.sessionCount(lobby) == 1)

        // A zero from a node removes its count at once.
        _ = registry.remote("c", counts: [ChannelCount(key: lobby, sessions: 4)], now: 40_000)
        #expect(registry.sessionCount(lobby) == 5)
        _ = registry.remote("c", counts: [ChannelCount(key: lobby, sessions: 0)], now: 40_100)
        #expect(registry.sessionCount(lobby) == 1)
        #expect(registry.remoteCounts["c"] == nil)
    }

    @Test func anotherNodesBroadcastReachesEveryRealtimeMemberAtItsKey() {
        var registry = ChannelRegistry()
        _ = registry.attach(ConnectionID(1), at: lobby, realtime: true)
        _ = registry.attach(ConnectionID(2), at: lobby, realtime: false)
        _ = registry.attach(ConnectionID(3), at: room, realtime: true)
        let message = ChannelMessage.broadcast(key: lobby, topic: "cursor", payload: "{}", sender: "ada")
        #expect(registry.remoteBroadcast(message) == [ChannelRegistry.Delivery(message: message, recipients: [ConnectionID(1)])])
        #expect(registry.remoteBroadcast(.sync(key: lobby)).isEmpty)
    }
}
