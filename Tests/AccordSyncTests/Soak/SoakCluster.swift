import Foundation
import AccordCRDT
import AccordStore
import AccordTesting
@testable import AccordSync

/// The soak's world: one in-process server that can go down and come back on its port
/// over the same store, and clients that each reach it through a FaultProxy of their
/// own, all with the same documents open. Runs ``SoakStep``s, then ends every fault and
/// tells whether all replicas and the server's stored state agree.
///
/// Used from the soak's one task only.
final class SoakCluster {
    let server: ClientTestServer
    let documents: [DocumentID]
    let replicas: [SoakReplica]
    let failures = SoakFailures()
    private let directory: TemporaryDirectory
    private var serverDown = false
    /// Per document, every value a push appended, so the end state can be checked
    /// for pushes lost or applied twice.
    private var pushed: [[String]]
    private var pushCount = 0

    /// Client timings shortened for a test, each chosen so a fault is noticed in a few
    /// seconds: reconnects 50–400 ms apart, an unanswered sync retried after 1 s, a
    /// silent connection (the server's 1 s heartbeat) dropped after about 3 s, and a
    /// message lost on a live connection fetched by a resync within 3 to 4.5 s.
    static let handshakeBudget: UInt64 = 1_000
    static let resyncInterval: UInt64 = 3_000

    init(seed: UInt64, clients: Int, documents: Int) async throws {
        server = try ClientTestServer(heartbeatSeconds: 1)
        directory = try TemporaryDirectory(prefix: "accord-soak")
        let ids = (0..<documents).map { DocumentID(stringLiteral: "soak-\($0)") }
        self.documents = ids
        pushed = Array(repeating: [], count: documents)
        let token = server.token("alice")
        var replicas: [SoakReplica] = []
        for index in 0..<clients {
            let proxy = try FaultProxy(targetPort: server.port, seed: seed &+ UInt64(index))
            let url = "ws://127.0.0.1:\(proxy.port)"
            replicas.append(try SoakReplica(
                index: index, proxy: proxy, storePath: directory.file("client-\(index).sqlite"), documents: ids,
                failures: failures
            ) { store in
                AccordClient(
                    serverURL: url, store: store, reconnect: ReconnectPolicy(initialDelay: 50, maxDelay: 400),
                    handshakeBudget: Self.handshakeBudget, resyncInterval: Self.resyncInterval, tokenProvider: { token })
            })
        }
        self.replicas = replicas
        for replica in replicas { try await replica.start() }
    }

    // MARK: Steps

    func run(_ step: SoakStep) async throws {
        switch step {
        case .edit(let client, let document, let edit):
            var value = ""
            if case .pushArray = edit {
                pushCount += 1
                value = "c\(client)-\(pushCount)"
            }
            try await replicas[client].apply(edit, to: documents[document], pushValue: value)
            if case .pushArray = edit { pushed[document].append(value) }
        case .pause(let milliseconds):
            try await Task.sleep(for: .milliseconds(milliseconds))
        case .cut(let client):
            replicas[client].proxy.cutAll()
        case .refuse(let client, let on):
            replicas[client].proxy.refuseNew = on
        case .messageFaults(let client, let toServer, let toClient):
            replicas[client].proxy.setFaults(toServer, .clientToServer)
            replicas[client].proxy.setFaults(toClient, .serverToClient)
        case .freeze(let client):
            replicas[client].proxy.freezeOpenConnections()
        case .goOffline(let client):
            await replicas[client].client.goOffline()
        case .goOnline(let client):
            await replicas[client].client.goOnline()
        case .useAutomaticMode(let client):
            await replicas[client].client.useAutomaticMode()
        case .serverDown:
            try await server.stop()
            serverDown = true
        case .serverUp:
            try await server.start()
            serverDown = false
        case .restartClient(let client, let graceful):
            try await replicas[client].restart(graceful: graceful)
        }
    }

    /// Ends every fault still on: the server runs, proxies forward everything, clients
    /// are in automatic mode. Frozen connections stay frozen until their heartbeat
    /// drops them, as a dead link would.
    func endFaults() async throws {
        if serverDown {
            try await server.start()
            serverDown = false
        }
        for replica in replicas {
            replica.proxy.setFaults(.none)
            replica.proxy.refuseNew = false
            await replica.client.useAutomaticMode()
        }
    }

    // MARK: Convergence

    /// Nil when every client is online with every document synced and acknowledged,
    /// and every replica equals the server's stored state; otherwise the first
    /// difference found.
    func divergence() async throws -> String? {
        for replica in replicas where await !replica.client.isOnline {
            return "\(replica.name) is offline"
        }
        for (number, id) in documents.enumerated() {
            let stored = try DocumentSnapshot(server.documents.load(id))
            for replica in replicas {
                guard await replica.client.isSynced(id) else { return "\(replica.name) d\(number) is not synced" }
                guard try replica.store.isAcknowledged(id) else {
                    return "\(replica.name) d\(number) has unacknowledged edits"
                }
                let snapshot = try await replica.snapshot(id)
                guard snapshot == stored else {
                    return "\(replica.name) d\(number) differs from the server:\n  client \(snapshot)\n  server \(stored)"
                }
            }
        }
        return nil
    }

    /// The pushes of each document missing from, or repeated in, the server's array.
    func pushDiscrepancies() throws -> [String] {
        var found: [String] = []
        for (number, id) in documents.enumerated() {
            let array = try DocumentSnapshot(server.documents.load(id)).array
            var counts: [String: Int] = [:]
            for element in array { counts[element, default: 0] += 1 }
            for value in pushed[number] where counts[value.jsonQuoted] != 1 {
                found.append("d\(number) holds \(value) \(counts[value.jsonQuoted] ?? 0) times")
            }
            let expected = Set(pushed[number].map(\.jsonQuoted))
            for element in counts.keys where !expected.contains(element) {
                found.append("d\(number) holds \(element), which no client pushed")
            }
        }
        return found
    }

    var pushes: Int { pushed.reduce(0) { $0 + $1.count } }

    /// What the proxies did, summed over the clients.
    var proxyCounters: String {
        var dropped = 0, duplicated = 0, swallowed = 0, accepted = 0, refused = 0
        for replica in replicas {
            let counters = replica.proxy.counters
            dropped += counters.clientToServer.messagesDropped + counters.serverToClient.messagesDropped
            duplicated += counters.clientToServer.messagesDuplicated + counters.serverToClient.messagesDuplicated
            swallowed += counters.clientToServer.framesSwallowed + counters.serverToClient.framesSwallowed
            accepted += counters.connectionsAccepted
            refused += counters.connectionsRefused
        }
        return "connections \(accepted) (refused \(refused)), messages dropped \(dropped), duplicated \(duplicated), frames swallowed \(swallowed)"
    }

    func shutDown() async throws {
        for replica in replicas {
            try await replica.stop()
            await replica.proxy.stop()
        }
        try await server.stop()
    }
}

extension String {
    /// The JSON text of this string as a value, as ``DocumentSnapshot`` lists array elements.
    fileprivate var jsonQuoted: String { AnyValue.string(self).jsonText }
}
