import Testing
import AccordCRDT
import AccordStore
import AccordTesting
@testable import AccordSync

/// Issue 5: three clients edit the same documents while cut off from the server, then
/// reconnect in a random order, and converge with every edit present exactly once.
@Suite(.serialized) struct CutOffReconnectTests {
    let ids: [DocumentID] = ["shared-0", "shared-1"]

    @Test(arguments: [UInt64(1), 2, 3])
    func threeClientsEditWhileCutOffAndConvergeWhateverTheOrderTheyReconnectIn(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let server = try ClientTestServer()
        var proxies: [FaultProxy] = []
        var clients: [AccordClient] = []
        var stores: [DocumentStore] = []
        for _ in 0..<3 {
            let proxy = try FaultProxy(targetPort: server.port)
            let store = memoryStore()
            let client = server.client(store: store, url: "ws://127.0.0.1:\(proxy.port)")
            await client.start()
            for id in ids { try await client.open(id) }
            proxies.append(proxy)
            stores.append(store)
            clients.append(client)
        }
        try await eventually("all synced") { try await allSynced(clients) }

        // Cut off: live connections closed, new ones refused.
        for proxy in proxies {
            proxy.refuseNew = true
            proxy.cutAll()
        }
        try await eventually("all offline") {
            for client in clients where await client.isOnline { return false }
            return true
        }
        var words: [DocumentID: [String]] = [:]
        for round in 0..<4 {
            for (number, client) in clients.enumerated() {
                for id in ids {
                    let word = "c\(number)r\(round)"
                    let atStart = random.chance(0.5)
                    try await client.withDocument(id) { doc in
                        try doc.transact {
                            let text = try doc.getText("t")
                            try text.insert(atStart ? 0 : text.length, word + " ")
                            // Concurrent writes of one key: one value must win everywhere.
                            try doc.getMap("m").set("last", .string(word))
                            try doc.getArray("a").append([.string(word)])
                        }
                    }
                    words[id, default: []].append(word)
                }
            }
        }
        try await eventually("offline edits durable and unacknowledged, one update per edit") {
            try stores.allSatisfy { store in try ids.allSatisfy { try store.unacknowledgedUpdates($0).count == 4 } }
        }
        #expect(try server.storedText(ids[0]).isEmpty)

        // Back in a random order, a random moment apart.
        let order = Array(0..<3).shuffled(using: &random)
        for index in order {
            proxies[index].refuseNew = false
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...300, using: &random)))
        }
        try await eventually("converged") {
            guard try await allSynced(clients), try stores.allSatisfy({ try $0.isAcknowledged(ids[0]) && $0.isAcknowledged(ids[1]) }) else {
                return false
            }
            for id in ids {
                let reference = try DocumentSnapshot(server.documents.load(id))
                for client in clients where try await client.withDocument(id, { try DocumentSnapshot($0) }) != reference {
                    return false
                }
            }
            return true
        }
        for id in ids {
            let stored = try DocumentSnapshot(server.documents.load(id))
            let expected = (words[id] ?? []).sorted()
            #expect(stored.text.split(separator: " ").map(String.init).sorted() == expected, "seed \(seed) \(id)")
            #expect(stored.array.sorted() == expected.map { AnyValue.string($0).jsonText }, "seed \(seed) \(id)")
            let winner = try #require(stored.map["last"])
            #expect(expected.map { AnyValue.string($0).jsonText }.contains(winner))
        }
        for client in clients { await client.stop() }
        for proxy in proxies { await proxy.stop() }
        try await server.stop()
    }

    private func allSynced(_ clients: [AccordClient]) async throws -> Bool {
        for client in clients {
            guard await client.isOnline else { return false }
            for id in ids where await !client.isSynced(id) { return false }
        }
        return true
    }
}
