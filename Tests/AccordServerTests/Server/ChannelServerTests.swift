import Testing
import AccordCRDT
import AccordNet
import AccordTesting
import Foundation
@testable import AccordServer

/// Channels through a real server: session counts over a tree of keys as clients
/// attach, detach, close and die (heartbeat reclaim), broadcasts fanned out exactly
/// once, and the refusals (bad keys, token pattern, limits, not attached).
@Suite(.serialized) struct ChannelServerTests {
    /// 25 keys in three levels: `org`, `org.t0`…`org.t3`, `org.tI.rJ`.
    static let keys: [String] = ["org"] + (0..<4).flatMap { team in
        ["org.t\(team)"] + (0..<5).map { "org.t\(team).r\($0)" }
    }

    /// Distinct clients with an attachment at `key` or under it.
    static func expectedCount(_ key: String, _ memberships: [Int: Set<String>]) -> UInt64 {
        UInt64(memberships.values.filter { keys in keys.contains { $0 == key || $0.hasPrefix(key + ".") } }.count)
    }

    /// Every live realtime client's last count at each key it attached equals the model.
    static func countsMatch(
        _ clients: [Int: ChannelTestClient], _ memberships: [Int: Set<String>]
    ) -> Bool {
        for (index, keys) in memberships {
            guard let client = clients[index] else { continue }
            for key in keys where client.count(key) != expectedCount(key, memberships) { return false }
        }
        return true
    }

    @Test func twoHundredClientsOverATreeOfKeysKeepCountsRightThroughJoinsLeavesAndKills() async throws {
        let server = try TestServer { configuration in
            configuration.heartbeatSeconds = 1
            configuration.maxConnectionsPerUser = 1000
            configuration.maxConnectionsPerAddress = 0
        }
        let proxy = try FaultProxy(targetPort: server.port)
        let pool = try WebSocketClientPool()
        let token = server.token("member")
        var clients: [Int: ChannelTestClient] = [:]
        var memberships: [Int: Set<String>] = [:]
        // 180 direct clients and 20 behind the proxy, to be killed.
        for index in 0..<200 {
            let port = index < 180 ? server.port : proxy.port
            clients[index] = try await ChannelTestClient.connect("c\(index)", pool: pool, port: port, token: token)
        }
        // Joins: each client at one key; every seventh also at its team (a second
        // attachment in the same subtree must not count it twice).
        for index in 0..<200 {
            let key = Self.keys[index % Self.keys.count]
            var keys: Set<String> = [key]
            clients[index]!.attach(key)
            if index % 7 == 0, key.split(separator: ".").count == 3 {
                let team = key.split(separator: ".").prefix(2).joined(separator: ".")
                clients[index]!.attach(team)
                keys.insert(team)
            }
            memberships[index] = keys
        }
        try await eventually("counts after the joins", timeout: .seconds(30)) { Self.countsMatch(clients, memberships) }
        #expect(Self.expectedCount("org", memberships) == 200)

        // Broadcast: exactly once to every other realtime member at the key, nobody else.
        let hot = "org.t1.r2"
        let membersAtHot = memberships.filter { $0.value.contains(hot) }.map(\.key).sorted()
        let sender = membersAtHot[0]
        for n in 0..<5 { clients[sender]!.broadcast(hot, topic: "wave", payload: #"{"n":\#(n)}"#) }
        try await eventually("broadcasts delivered") {
            membersAtHot.dropFirst().allSatisfy { clients[$0]!.broadcasts.count >= 5 }
        }
        try await Task.sleep(for: .milliseconds(300))  // room for duplicates to show up
        for index in 0..<200 {
            let received = clients[index]!.broadcasts
            if index != sender, membersAtHot.contains(index) {
                let payloads = received.compactMap { message -> String? in
                    guard case .broadcast(let key, "wave", let payload, "member") = message, key.rawValue == hot else { return nil }
                    return payload
                }
                #expect(payloads == (0..<5).map { #"{"n":\#($0)}"# }, "client \(index)")
                #expect(received.count == 5, "client \(index)")
            } else {
                #expect(received.isEmpty, "client \(index) is not a realtime member of \(hot) or sent it")
            }
        }

        // Leaves: 30 detach one key, 30 close their connection.
        for index in 0..<30 {
            let key = memberships[index]!.sorted().first!
            clients[index]!.detach(key)
            memberships[index]!.remove(key)
        }
        for index in 100..<130 {
            clients[index]!.close()
            clients[index] = nil
            memberships[index] = nil
        }
        try await eventually("counts after the leaves", timeout: .seconds(30)) { Self.countsMatch(clients, memberships) }

        // Kills: the proxied connections go silent (no close); the server's heartbeat
        // (1 s, dropped after three silent intervals) reclaims them.
        proxy.freezeOpenConnections()
        let frozenAt = ContinuousClock.now
        for index in 180..<200 {
            clients[index] = nil
            memberships[index] = nil
        }
        try await eventually("counts after the kills", timeout: .seconds(30)) { Self.countsMatch(clients, memberships) }
        #expect(ContinuousClock.now - frozenAt >= .seconds(1), "the counts dropped before any heartbeat could tell")

        // A fresh observer asks at every key (non-realtime attach, then sync): the
        // server's counts, including keys with no one attached exactly there.
        let observer = try await ChannelTestClient.connect("observer", pool: pool, port: server.port, token: token)
        var observed = memberships
        observed[-1] = Set(Self.keys.prefix(20))
        for key in Self.keys.prefix(20) { observer.attach(key, realtime: false) }
        // Answered in order after the attaches: the last count per key is the sync's.
        for key in Self.keys.prefix(20) { observer.sync(key) }
        try await eventually("observer's synced counts") {
            Self.keys.prefix(20).allSatisfy { observer.count($0) == Self.expectedCount($0, observed) }
        }
        #expect(observer.errors.isEmpty)
        #expect(observer.broadcasts.isEmpty)
        // Its non-realtime attachments count for the realtime members too.
        try await eventually("counts with the observer") { Self.countsMatch(clients, observed) }

        await pool.stop()
        await proxy.stop()
        try await server.stop()
    }

    @Test func refusals() async throws {
        let server = try TestServer { $0.maxChannelsPerConnection = 3 }
        let pool = try WebSocketClientPool()
        // Token pattern: `org.t1` and under.
        let limited = server.tokens.mint(subject: "ann", ttl: 3600, channels: try ChannelKeyPattern(validating: "org.t1"))
        let ann = try await ChannelTestClient.connect("ann", pool: pool, port: server.port, token: limited)
        ann.attach("org.t0.r0")
        ann.attach("org")
        ann.attach("org.t1.r2")
        try await eventually("pattern answers") { ann.errors.count == 2 && ann.count("org.t1.r2") == 1 }
        #expect(ann.errors.map(\.code) == ["CHANNEL_ACCESS_DENIED", "CHANNEL_ACCESS_DENIED"])
        #expect(ann.errors.map(\.key.rawValue) == ["org.t0.r0", "org"])
        #expect(ann.count("org") == nil)

        // A `*` segment matches any one segment.
        let wild = server.tokens.mint(subject: "wil", ttl: 3600, channels: try ChannelKeyPattern(validating: "*.lobby"))
        let wil = try await ChannelTestClient.connect("wil", pool: pool, port: server.port, token: wild)
        wil.attach("a.lobby.x")
        wil.attach("a.hall")
        try await eventually("wildcard answers") { wil.errors.count == 1 && wil.count("a.lobby.x") == 1 }
        #expect(wil.errors.first?.key.rawValue == "a.hall")

        // A channels claim that is not a pattern makes the token invalid.
        let bad = server.tokens.signed(
            headerJSON: TokenAuthority.headerJSON,
            payloadJSON: Array(#"{"sub":"eve","exp":99999999999,"channels":"a..b"}"#.utf8))
        #expect(throws: AccordError.self) { try server.tokens.verify(bad) }
        let eve = try await ChannelTestClient.connect("eve", pool: pool, port: server.port, token: bad, waitForHello: false)
        try await eventually("eve refused") { eve.closed == SyncCloseCode.unauthenticated }

        // Without a claim any channel; the per-connection limit is 3.
        let bob = try await ChannelTestClient.connect("bob", pool: pool, port: server.port, token: server.token("bob"))
        for key in ["a", "b", "c", "d"] { bob.attach(key) }
        bob.attach("a")  // again: a mode change, not a fourth channel
        try await eventually("limit answers") { bob.errors.count == 1 && bob.count("c") == 1 }
        #expect(bob.errors.first?.code == "TOO_MANY_CHANNELS")
        #expect(bob.errors.first?.key.rawValue == "d")

        // Broadcast or sync on a channel not attached.
        bob.broadcast("zzz", topic: "t", payload: "1")
        bob.sync("zzz")
        try await eventually("not attached") { bob.errors.count == 3 }
        #expect(bob.errors.dropFirst().map(\.code) == ["CHANNEL_NOT_ATTACHED", "CHANNEL_NOT_ATTACHED"])

        // An invalid key on the wire is a malformed frame: the connection is closed.
        let mallory = try await ChannelTestClient.connect("mal", pool: pool, port: server.port, token: server.token("mal"))
        mallory.sendRaw([0x00, 0x64, 0x1e, 0x04] + Array("a..b".utf8) + [0x01])
        try await eventually("malformed closes") { mallory.closed == SyncCloseCode.malformed }

        // A channel frame under a document (on /v1/sync/{id}) is refused, the connection stays.
        let single = try await server.client("sam", document: "notes")
        single.sendRaw(try AccordMessage.channel(.attach(key: ChannelKey(rawValue: "a")!, realtime: true)).encode())
        try await eventually("document endpoint refuses channels") { single.errorCodes.contains("INVALID_ARGUMENT") }
        #expect(single.closed == nil)

        await pool.stop()
        try await server.stop()
    }
}

/// The registry alone, against a brute-force model: random attaches and detaches
/// over a tree of keys, and every realtime member's last pushed count checked after
/// every step.
@Suite struct ChannelRegistryTests {
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func countsAndPushesMatchABruteForceModel(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let keys = ChannelServerTests.keys.map { ChannelKey(rawValue: $0)! }
        var registry = ChannelRegistry()
        var members: [ConnectionID: [ChannelKey: Bool]] = [:]
        var lastPushed: [ConnectionID: [ChannelKey: UInt64]] = [:]
        // The brute-force count: every connection added at each of its keys' ancestors.
        var model: [ChannelKey: Set<ConnectionID>] = [:]
        func recount() {
            model = [:]
            for (id, attached) in members {
                for key in attached.keys {
                    var prefix = ""
                    for segment in key.rawValue.split(separator: ".") {
                        prefix = prefix.isEmpty ? String(segment) : prefix + "." + segment
                        model[ChannelKey(rawValue: prefix)!, default: []].insert(id)
                    }
                }
            }
        }
        var mismatches: [String] = []
        for step in 0..<1_500 {
            let connection = ConnectionID(rng.next() % 30)
            let key = keys[Int(rng.next() % UInt64(keys.count))]
            let deliveries: [ChannelRegistry.Delivery]
            if rng.next() % 3 == 0 {
                deliveries = registry.handle(.detach(key: key), from: connection)
                members[connection]?[key] = nil
            } else {
                let realtime = rng.next() % 4 != 0
                deliveries = registry.handle(.attach(key: key, realtime: realtime), from: connection)
                members[connection, default: [:]][key] = realtime
            }
            for delivery in deliveries {
                guard case .count(let at, let sessions) = delivery.message else { continue }
                for recipient in delivery.recipients { lastPushed[recipient, default: [:]][at] = sessions }
            }
            // Plain comparisons, one expectation at the end: cheap enough for every step.
            recount()
            for key in keys where registry.sessionCount(key) != UInt64(model[key]?.count ?? 0) {
                mismatches.append("step \(step): count at \(key)")
            }
            for (id, attached) in members {
                for (key, realtime) in attached where realtime && lastPushed[id]?[key] != UInt64(model[key]?.count ?? 0) {
                    mismatches.append("step \(step): connection \(id)'s pushed count at \(key)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        // Everyone detaches: nothing is left behind.
        for (id, attached) in members { for key in attached.keys { _ = registry.handle(.detach(key: key), from: id) } }
        #expect(registry.channelCount == 0)
        #expect(keys.allSatisfy { registry.sessionCount($0) == 0 })
    }
}
