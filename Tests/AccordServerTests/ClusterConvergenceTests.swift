import Foundation
import Testing
import AccordCRDT
import AccordPostgres
import AccordStore
import AccordTesting
@testable import AccordServer

/// The issue's cluster convergence check, sized for CI: 3 nodes, 12 clients over 4
/// documents editing for about 8 s while a random node is SIGKILLed and restarted
/// every 2 s (clients of a killed node reconnect to another). After the faults stop,
/// every acknowledged edit is present and every node and the database hold the same
/// state within 30 s.
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
        var cluster = try ClusterServeTests.Cluster()
        defer { cluster.drop() }
        for index in 0..<3 { try cluster.start(index) }
        let documents: [DocumentID] = ["c0", "c1", "c2", "c3"]
        for document in documents {
            _ = try await recordsCall(
                port: cluster.nodes[0].port, "POST", "/v1/documents", token: cluster.token, body: #"{"id":"\#(document.rawValue)"}"#)
        }
        var editors: [Editor] = []
        for index in 0..<12 {
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
        while ContinuousClock.now - start < .seconds(8) {
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
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        // Faults stop: every node up, then each connection's acks settle.
        for index in alive.indices where !alive[index] { try cluster.start(index) }
        try await Task.sleep(for: .milliseconds(500))
        for editor in editors { editor.collectAcks() }
        let ackedCount = editors.reduce(0) { $0 + $1.acked.count }
        #expect(kills >= 2 && reconnects >= 4, "\(kills) kills, \(reconnects) reconnects")
        #expect(ackedCount > 100, "too few acknowledged edits (\(ackedCount)) for the check to mean much")

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
        for editor in editors { editor.client.close() }
    }
}
