import Foundation
import Testing
import AccordCRDT
import AccordPostgres
import AccordStore
import AccordTesting
@testable import AccordServer

/// `accord serve --cluster`: several nodes on one PostgreSQL schema behave as one
/// server. Edits made through one node reach the clients of the others (LISTEN/NOTIFY
/// as the hint, the shared log as the truth), and an edit a node acknowledged survives
/// that node's SIGKILL.
@Suite(.serialized) struct ClusterServeTests {
    /// Nodes on one schema with one secret (the first node's dev secret, copied), so a
    /// token works on every node.
    struct Cluster {
        let url: String
        let schema: String
        var directories: [TemporaryDirectory] = []
        var nodes: [ServeProcess] = []

        init() throws {
            guard let url = ProcessInfo.processInfo.environment["ACCORD_POSTGRES_URL"], !url.isEmpty else {
                throw TestFailure("ACCORD_POSTGRES_URL is not set: run the tests through scripts/test.sh, which starts PostgreSQL")
            }
            self.url = url
            schema = "cluster" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        }

        var arguments: [String] { ["--postgres", url, "--postgres-schema", schema, "--cluster"] }

        /// Starts node `index` (a new one, or again after a kill, in its old directory).
        mutating func start(_ index: Int) throws {
            if index == directories.count {
                let directory = try TemporaryDirectory()
                if let first = directories.first {
                    try FileManager.default.copyItem(atPath: first.path + "/dev.secret", toPath: directory.path + "/dev.secret")
                }
                directories.append(directory)
                nodes.append(try ServeProcess(dataDirectory: directory.path, extraArguments: arguments))
            } else {
                nodes[index] = try ServeProcess(dataDirectory: directories[index].path, extraArguments: arguments)
            }
        }

        var token: String { nodes[0].token }

        func client(on node: Int, _ document: DocumentID, accordUpdates: Bool = false) async throws -> SyncTestClient {
            let client = try await SyncTestClient.connect(port: nodes[node].port, document: document, token: token)
            client.sendsAccordUpdates = accordUpdates
            return client
        }

        func drop() {
            for node in nodes { _ = node.terminate() }
            _ = try? PostgresConnection(url: url).execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        }
    }

    @Test func clientsOnDifferentNodesConverge() async throws {
        var cluster = try Cluster()
        defer { cluster.drop() }
        for index in 0..<3 { try cluster.start(index) }
        let document: DocumentID = "shared"
        let clients = [
            try await cluster.client(on: 0, document), try await cluster.client(on: 1, document),
            try await cluster.client(on: 2, document),
        ]
        // The first join creates the document; wait until each client is in its room.
        try await eventually("every client synced") { clients.allSatisfy { !$0.frames.isEmpty } }
        for (index, client) in clients.enumerated() {
            client.edit(document) { doc in try! doc.getText("t").insert(0, "n\(index) ") }
        }
        try await eventually("all three edits on every node", timeout: .seconds(20)) {
            clients.allSatisfy { client in (0..<3).allSatisfy { client.text(document).contains("n\($0) ") } }
        }
        let texts = clients.map { $0.text(document) }
        #expect(Set(texts).count == 1, "\(texts)")
        // A burst from one node reaches the others in order, each edit once.
        for step in 0..<30 { clients[1].edit(document) { doc in try! doc.getText("t").insert(0, "\(step % 10)") } }
        try await eventually("the burst everywhere", timeout: .seconds(20)) {
            Set(clients.map { $0.text(document) }).count == 1
        }
        #expect(clients[0].text(document).count == texts[0].count + 30)
        for client in clients { client.close() }
    }

    /// An edit node A acknowledged is in PostgreSQL: after A's SIGKILL, a client that
    /// reconnects to B gets it, and B's clients already saw it.
    @Test func anAcknowledgedEditSurvivesTheNodesKill() async throws {
        var cluster = try Cluster()
        defer { cluster.drop() }
        try cluster.start(0)
        try cluster.start(1)
        let document: DocumentID = "survivor"
        let writer = try await cluster.client(on: 0, document, accordUpdates: true)
        let watcher = try await cluster.client(on: 1, document)
        try await eventually("both synced") { !writer.frames.isEmpty && !watcher.frames.isEmpty }
        writer.edit(document) { doc in try! doc.getText("t").insert(0, "acked before the kill") }
        do {
            try await eventually("the ack") { writer.acks.contains(1) }
        } catch {
            Issue.record("no ack; errors \(writer.errorCodes), frames \(writer.frames.map { "\($0.frame)".prefix(60) })")
            throw error
        }
        cluster.nodes[0].kill()

        let reconnected = try await cluster.client(on: 1, document)
        do {
            try await eventually("the edit after reconnecting to B") { reconnected.text(document) == "acked before the kill" }
        } catch {
            Issue.record("B: \(reconnected.text(document)) errors \(reconnected.errorCodes); watcher \(watcher.text(document)) \(watcher.errorCodes)")
            throw error
        }
        try await eventually("B's client saw it") { watcher.text(document) == "acked before the kill" }

        // A restarted A serves it too, and edits made through B meanwhile reach it.
        watcher.edit(document) { doc in try! doc.getText("t").insert(0, "B: ") }
        try cluster.start(0)
        let back = try await cluster.client(on: 0, document)
        try await eventually("A after its restart") { back.text(document) == "B: acked before the kill" }
        for client in [writer, watcher, reconnected, back] { client.close() }
    }

    /// A revoke through node A refuses the user's next write on node B, and a delete
    /// through A closes the document's connections on B.
    @Test func revokesAndDeletesReachTheOtherNodes() async throws {
        var cluster = try Cluster()
        defer { cluster.drop() }
        try cluster.start(0)
        try cluster.start(1)
        let secret = try ServerSecret.load(secretFile: cluster.directories[0].path + "/dev.secret")
        let tokens = try TokenAuthority(secret: secret)
        let rita = tokens.mint(subject: "rita", ttl: 3600)
        func call(_ node: Int, _ method: String, _ path: String, _ body: String? = nil) async throws -> Int {
            try await recordsCall(port: cluster.nodes[node].port, method, path, token: cluster.token, body: body).status
        }
        #expect(try await call(0, "POST", "/v1/documents", #"{"id":"team"}"#) == 201)
        #expect(try await call(0, "PUT", "/v1/documents/team/permissions", #"{"user":"rita","role":"read-write"}"#) == 200)
        let document: DocumentID = "team"
        let onB = try await SyncTestClient.connect(port: cluster.nodes[1].port, document: document, token: rita)
        onB.sendsAccordUpdates = true
        try await eventually("rita synced on B") { !onB.frames.isEmpty }
        onB.edit(document) { doc in try! doc.getText("t").insert(0, "allowed") }
        try await eventually("rita's write acked") { onB.acks.contains(1) }

        #expect(try await call(0, "DELETE", "/v1/documents/team/permissions?user=rita") == 200)
        try await eventually("B refuses rita's access") {
            onB.errorCodes.contains("DOC_ACCESS_DENIED") || onB.closed != nil
        }
        onB.edit(document) { doc in try! doc.getText("t").insert(0, "refused ") }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!onB.acks.contains(2))
        let owner = try await cluster.client(on: 0, document)
        try await eventually("the owner's copy") { owner.text(document) == "allowed" }
        try await Task.sleep(for: .milliseconds(300))
        #expect(owner.text(document) == "allowed")

        // The owner's connection on B goes when A deletes the document.
        let ownerOnB = try await cluster.client(on: 1, document)
        try await eventually("the owner synced on B") { ownerOnB.text(document) == "allowed" }
        #expect(try await call(0, "DELETE", "/v1/documents/team") == 200)
        try await eventually("B closes the deleted document") {
            ownerOnB.errorCodes.contains("DOCUMENT_DELETED") || ownerOnB.closed != nil
        }
        for client in [onB, owner, ownerOnB] { client.close() }
    }

    /// The notice is a hint, the log the truth: an entry committed without a notice
    /// (as if the notice had been lost) reaches a node's clients once the node's LISTEN
    /// connection is cut and re-established, which makes every open room read its log.
    @Test func aNodeCatchesUpFromTheLogAfterItsListenConnectionIsLost() async throws {
        var cluster = try Cluster()
        defer { cluster.drop() }
        try cluster.start(0)
        try cluster.start(1)
        #expect(try await recordsCall(
            port: cluster.nodes[0].port, "POST", "/v1/documents", token: cluster.token, body: #"{"id":"quiet"}"#).status == 201)
        let document: DocumentID = "quiet"
        let watcher = try await cluster.client(on: 1, document)
        try await eventually("the watcher joined") {
            watcher.frames.contains { if case .sync(.step2) = $0.frame { true } else { false } }
        }

        // Straight into the tables, with no notice: only a catch-up can find it.
        let writer = Doc()
        try writer.getText("t").insert(0, "unannounced")
        let database = try PostgresConnection(url: cluster.url)
        let log: PostgresValue = .text("doc.log")
        let head = try database.query(
            """
            INSERT INTO \(cluster.schema).accord_log_heads AS h (category, key, last) VALUES ($1, $2, 1)
            ON CONFLICT (category, key) DO UPDATE SET last = h.last + 1 RETURNING last
            """, [log, .text("quiet")]).firstInt64 ?? 0
        _ = try database.query(
            "INSERT INTO \(cluster.schema).accord_logs (category, key, sequence, value) VALUES ($1, $2, $3, $4)",
            [log, .text("quiet"), .int64(head), .bytes([0] + writer.encodeStateAsUpdate())])
        try await Task.sleep(for: .milliseconds(300))
        #expect(watcher.text(document) == "", "arrived without a notice or a resync")

        let cut = try database.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1", [.text("LISTEN \"\(cluster.schema)\"")])
        #expect(cut.rows.count == 2, "one LISTEN connection per node")
        try await eventually("the entry after the resync") { watcher.text(document) == "unannounced" }
        // The feed works again afterwards: an edit through A reaches B's client.
        let onA = try await cluster.client(on: 0, document)
        try await eventually("A's client synced") { onA.text(document) == "unannounced" }
        onA.edit(document) { doc in try! doc.getText("t").insert(0, "then ") }
        try await eventually("a notified edit after the reconnect") { watcher.text(document) == "then unannounced" }
        for client in [watcher, onA] { client.close() }
    }

    /// Awareness set through one node reaches the clients of the others, and its
    /// removal (the client leaving) does too; so do broadcasts.
    @Test func awarenessAndBroadcastsCrossNodes() async throws {
        var cluster = try Cluster()
        defer { cluster.drop() }
        try cluster.start(0)
        try cluster.start(1)
        #expect(try await recordsCall(
            port: cluster.nodes[0].port, "POST", "/v1/documents", token: cluster.token, body: #"{"id":"cursors"}"#).status == 201)
        let document: DocumentID = "cursors"
        let onA = try await cluster.client(on: 0, document)
        let onB = try await cluster.client(on: 1, document)
        for client in [onA, onB] {
            try await eventually("joined") {
                client.frames.contains { if case .sync(.step2) = $0.frame { true } else { false } }
            }
        }
        let ada = AwarenessUpdate.Entry(clientID: 4242, clock: 1, state: .string("ada at 3"))
        onA.send(.awareness(AwarenessUpdate([ada]).encode()), document: document)
        func seen(_ client: SyncTestClient, state: AnyValue?) -> Bool {
            client.awarenessUpdates.contains { bytes in
                (try? AwarenessUpdate.decode(bytes).entries.contains { $0.clientID == 4242 && $0.state == state }) == true
            }
        }
        try await eventually("ada's cursor on B") { seen(onB, state: .string("ada at 3")) }
        // Broadcasts too, with the sender the first node verified.
        let broadcast = try AccordMessage.broadcast(documentID: "cursors", topic: "cursor", payload: #"{"at":3}"#, sender: nil)
        onA.send(try broadcast.frame(), document: document)
        try await eventually("the broadcast on B") { !onB.broadcasts.isEmpty }
        #expect(onB.broadcasts == [.broadcast(documentID: "cursors", topic: "cursor", payload: #"{"at":3}"#, sender: "dev")])
        #expect(onA.broadcasts.isEmpty)
        onA.close()
        try await eventually("ada's removal on B") { seen(onB, state: nil) }
        onB.close()
    }

    /// A single node holds the schema exclusively and cluster nodes share it, so the
    /// two kinds never write one schema at once.
    @Test func singleNodesAndClusterNodesDoNotMix() throws {
        var cluster = try Cluster()
        defer { cluster.drop() }
        try cluster.start(0)
        let single = try TemporaryDirectory()
        let refused = #expect(throws: (any Error).self) {
            _ = try ServeProcess(
                dataDirectory: single.path, extraArguments: ["--postgres", cluster.url, "--postgres-schema", cluster.schema])
        }
        #expect("\(refused.map { "\($0)" } ?? "")".contains("POSTGRES_SCHEMA_IN_USE"))
    }
}
