import Foundation
import Testing
import AccordCRDT
import AccordPostgres
import AccordStore
import AccordTesting
@testable import AccordServer

/// The issue's cluster convergence check: 3 nodes, clients over documents editing while
/// a random node is SIGKILLed and restarted every 2 s (clients of a killed node
/// reconnect to another). After the faults stop, every acknowledged edit is present,
/// every node and the database hold the same state within 30 s, and (at the issue's
/// size, 60 clients over 20 documents) every client sees every other client's final
/// awareness state on its document.
@Suite(.serialized) struct ClusterConvergenceTests {
    /// One simulated user: a connection that may be replaced, and its acked tokens.
    final class Editor {
        let index: Int
        let document: DocumentID
        var client: SyncTestClient
        var node: Int
        /// Tokens sent on the current connection, in sequence order.
        var sent: [String] = []
        var acked: Set<String> = []

        init(index: Int, document: DocumentID, client: SyncTestClient, node: Int) {
            self.index = index
            self.document = document
            self.client = client
            self.node = node
        }

        /// Moves what the current connection acknowledged into `acked`.
        func collectAcks() {
            let through = client.acks.max() ?? 0
            for token in sent.prefix(Int(through)) { acked.insert(token) }
        }
    }

    @Test func randomNodeKillsLoseNoAcknowledgedEdit() async throws {
        try await converge(clients: 12, documents: 4, seconds: 8, pause: .milliseconds(50), minimumAcked: 100)
    }

    /// The issue's size, with awareness: 60 clients over 20 documents.
    @Test func sixtyClientsOverTwentyDocumentsConvergeWithAwareness() async throws {
        try await converge(clients: 60, documents: 20, seconds: 8, pause: .milliseconds(150), minimumAcked: 300, awareness: true)
    }

    private func converge(
        clients clientCount: Int, documents documentCount: Int, seconds: Int, pause: Duration, minimumAcked: Int,
        awareness: Bool = false
    ) async throws {
        var cluster = try ClusterServeTests.Cluster()
        defer { cluster.drop() }
        for index in 0..<3 { try cluster.start(index) }
        let documents: [DocumentID] = (0..<documentCount).map { DocumentID(rawValue: "c\($0)")! }
        for document in documents {
            _ = try await recordsCall(
                port: cluster.nodes[0].port, "POST", "/v1/documents", token: cluster.token, body: #"{"id":"\#(document.rawValue)"}"#)
        }
        var editors: [Editor] = []
        for index in 0..<clientCount {
            let document = documents[index % documents.count]
            let client = try await cluster.client(on: index % 3, document, accordUpdates: true)
            editors.append(Editor(index: index, document: document, client: client, node: index % 3))
        }
        var alive = [true, true, true]
        var generator = SystemRandomNumberGenerator()
        let start = ContinuousClock.now
        var lastFault = start
        var round = 0
        var kills = 0
        var reconnects = 0
        while ContinuousClock.now - start < .seconds(seconds) {
            round += 1
            if ContinuousClock.now - lastFault > .seconds(2) {
                lastFault = ContinuousClock.now
                if let dead = alive.firstIndex(of: false) {
                    try cluster.start(dead)
                    alive[dead] = true
                } else {
                    let victim = Int.random(in: 0..<3, using: &generator)
                    cluster.nodes[victim].kill()
                    alive[victim] = false
                    kills += 1
                }
            }
            for editor in editors {
                if !alive[editor.node] || editor.client.closed != nil {
                    // Its node died: keep what was acked, reconnect to a live node.
                    editor.collectAcks()
                    editor.client.close()
                    let node = alive.indices.filter { alive[$0] }.randomElement(using: &generator)!
                    editor.client = try await cluster.client(on: node, editor.document, accordUpdates: true)
                    editor.node = node
                    editor.sent = []
                    reconnects += 1
                }
                let token = "e\(editor.index)r\(round);"
                editor.sent.append(token)
                editor.client.edit(editor.document) { doc in try! doc.getText("t").insert(0, token) }
                if awareness, round % 4 == 0 { Self.sendAwareness(editor, clock: UInt64(round), state: "e\(editor.index) at \(round)") }
            }
            try await Task.sleep(for: pause)
        }
        // Faults stop: every node up, then each connection's acks settle.
        for index in alive.indices where !alive[index] { try cluster.start(index) }
        try await Task.sleep(for: .milliseconds(500))
        for editor in editors { editor.collectAcks() }
        let ackedCount = editors.reduce(0) { $0 + $1.acked.count }
        #expect(kills >= 2 && reconnects >= 4, "\(kills) kills, \(reconnects) reconnects")
        #expect(ackedCount > minimumAcked, "too few acknowledged edits (\(ackedCount)) for the check to mean much")

        // Fresh observers on every node agree with each other and with the database,
        // and hold every acknowledged edit.
        var options = DocumentStore.Options()
        options.shared = SharedStorage(documentLock: try PostgresDocumentLock(url: cluster.url, schema: cluster.schema))
        let store = DocumentStore(
            storage: SerialStorage(try PostgresStorageAdapter(
                url: cluster.url, schema: cluster.schema, sharedLogs: [DocumentStore.sharedLogCategory])),
            options: options)
        for document in documents {
            var observers: [SyncTestClient] = []
            for node in 0..<3 { observers.append(try await cluster.client(on: node, document)) }
            let stored = { () -> String in
                (try? store.loadShared(document).doc.getText("t").string) ?? ""
            }
            let acked = editors.filter { $0.document == document }.flatMap(\.acked)
            do {
                try await eventually("\(document) converged", timeout: .seconds(30)) {
                    let texts = observers.map { $0.text(document) } + [stored()]
                    return Set(texts).count == 1 && acked.allSatisfy { texts[0].contains($0) }
                }
            } catch {
                let missing = acked.filter { !stored().contains($0) }
                Issue.record("\(document): \(observers.map { $0.text(document).count }) chars, \(missing.count) acked edits missing")
                throw error
            }
            for observer in observers { observer.close() }
        }
        if awareness {
            // Each editor's last state (a clock past every earlier one) reaches every
            // other editor of its document, whichever node each ended on.
            for editor in editors {
                Self.sendAwareness(editor, clock: UInt64(round + 1000), state: "final e\(editor.index)")
            }
            for editor in editors {
                let peers = editors.filter { $0.document == editor.document && $0.index != editor.index }
                do {
                    try await eventually("e\(editor.index) sees its peers' final awareness", timeout: .seconds(30)) {
                        let seen = Self.awarenessStates(editor.client)
                        return peers.allSatisfy { seen[Self.awarenessClient($0)] == .string("final e\($0.index)") }
                    }
                } catch {
                    Issue.record("e\(editor.index) on node \(editor.node) saw \(Self.awarenessStates(editor.client).count) states")
                    throw error
                }
            }
        }
        for editor in editors { editor.client.close() }
    }

    /// Each editor's awareness client id (stable across its reconnects).
    static func awarenessClient(_ editor: Editor) -> UInt64 { 50_000 + UInt64(editor.index) }

    static func sendAwareness(_ editor: Editor, clock: UInt64, state: String) {
        let entry = AwarenessUpdate.Entry(clientID: awarenessClient(editor), clock: clock, state: .string(state))
        editor.client.send(.awareness(AwarenessUpdate([entry]).encode()), document: editor.document)
    }

    /// The latest state (highest clock) per awareness client a connection received.
    static func awarenessStates(_ client: SyncTestClient) -> [UInt64: AnyValue?] {
        var latest: [UInt64: (clock: UInt64, state: AnyValue?)] = [:]
        for bytes in client.awarenessUpdates {
            guard let update = try? AwarenessUpdate.decode(bytes) else { continue }
            for entry in update.entries where (latest[entry.clientID]?.clock ?? 0) <= entry.clock {
                latest[entry.clientID] = (entry.clock, entry.state)
            }
        }
        return latest.mapValues(\.state)
    }
}
