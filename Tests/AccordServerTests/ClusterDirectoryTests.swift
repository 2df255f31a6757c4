import Foundation
import Testing
import AccordCRDT
import AccordPostgres
import AccordStore
import AccordTesting
@testable import AccordServer

/// The directory across a cluster's nodes: a group or collection change made through
/// one node reaches the others (and their open connections), changes to one group or
/// collection through two nodes at once all land, and the users' listings are numbered
/// by PostgreSQL, so creates on two nodes at once never collide.
@Suite(.serialized) struct ClusterDirectoryTests {
    typealias Cluster = ClusterServeTests.Cluster

    /// A cluster with two nodes started, and the token authority of their secret (the
    /// cluster dropped again when a node does not start).
    static func twoNodes() throws -> (cluster: Cluster, tokens: TokenAuthority) {
        var cluster = try Cluster()
        do {
            try cluster.start(0)
            try cluster.start(1)
            let secret = try ServerSecret.load(secretFile: cluster.directories[0].path + "/dev.secret")
            return (cluster, try TokenAuthority(secret: secret))
        } catch {
            cluster.drop()
            throw error
        }
    }

    /// The keys of the `members` object of a permissions or collection answer.
    static func memberNames(_ answer: RecordsResponse) -> Set<String> {
        Set(((answer.json as? [String: Any])?["members"] as? [String: Any])?.keys.map { $0 } ?? [])
    }

    /// The statuses of `count` calls made at once, call `i` to `ports[i % ports.count]`.
    static func statuses(
        ofCalls count: Int, over ports: [Int], _ call: @escaping @Sendable (_ index: Int, _ port: Int) async throws -> Int
    ) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count { group.addTask { try await call(index, ports[index % ports.count]) } }
            var all: [Int] = []
            for try await status in group { all.append(status) }
            return all
        }
    }

    /// Asks `read` until it answers `expected` or 10 s pass (another node hears of a
    /// change asynchronously); its last answer.
    static func polled<T: Equatable>(until expected: T, _ read: () async throws -> T) async throws -> T {
        let deadline = ContinuousClock.now + .seconds(10)
        var answer = try await read()
        while answer != expected, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            answer = try await read()
        }
        return answer
    }

    /// Rita gets a document through a group: added through node A, she may open it on
    /// node B (whose group store had already read the group without her); removed
    /// through A, her open connection on B is refused at once, not at her next reconnect.
    @Test func groupMembershipChangesReachTheOtherNodes() async throws {
        let (cluster, tokens) = try Self.twoNodes()
        defer { cluster.drop() }
        let rita = tokens.mint(subject: "rita", ttl: 3600)
        let admin = tokens.mint(subject: "root", ttl: 3600, admin: true)
        func call(_ node: Int, _ method: String, _ path: String, token: String, _ body: String? = nil) async throws -> Int {
            try await recordsCall(port: cluster.nodes[node].port, method, path, token: token, body: body).status
        }
        #expect(try await call(0, "POST", "/v1/documents", token: cluster.token, #"{"id":"guild"}"#) == 201)
        #expect(try await call(
            0, "PUT", "/v1/documents/guild/groups", token: cluster.token,
            #"{"groupType":"team","groupId":"design","role":"read-write"}"#) == 200)
        let document: DocumentID = "guild"

        // Before she is a member, B refuses her (and has read the group by then).
        let early = try await SyncTestClient.connect(port: cluster.nodes[1].port, document: document, token: rita)
        try await eventually("B refuses rita before she is a member") {
            early.closed != nil || early.errorCodes.contains("DOC_ACCESS_DENIED")
        }
        early.close()

        #expect(try await call(0, "PUT", "/v1/admin/groups/team/design/members", token: admin, #"{"users":["rita"]}"#) == 200)
        // The announcement travels asynchronously: connect until B lets her in.
        var onB: SyncTestClient?
        let deadline = ContinuousClock.now + .seconds(10)
        while onB == nil, ContinuousClock.now < deadline {
            let attempt = try await SyncTestClient.connect(port: cluster.nodes[1].port, document: document, token: rita)
            attempt.sendsAccordUpdates = true
            try? await eventually("an answer", timeout: .seconds(3)) {
                attempt.closed != nil || !attempt.errorCodes.isEmpty
                    || attempt.frames.contains { if case .sync(.step2) = $0.frame { true } else { false } }
            }
            if attempt.closed == nil, attempt.errorCodes.isEmpty {
                onB = attempt
            } else {
                attempt.close()
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        let member = try #require(onB, "B never let rita in after A added her to the group")
        member.edit(document) { doc in try! doc.getText("t").insert(0, "member") }
        try await eventually("her write acked on B") { member.acks.contains(1) }

        #expect(try await call(0, "DELETE", "/v1/admin/groups/team/design/members?user=rita", token: admin) == 200)
        try await eventually("B refuses her open connection") {
            member.errorCodes.contains("DOC_ACCESS_DENIED") || member.closed != nil
        }
        member.edit(document) { doc in try! doc.getText("t").insert(0, "refused ") }
        try await Task.sleep(for: .milliseconds(300))
        #expect(!member.acks.contains(2))
        member.close()
    }

    /// Twenty creates through each of two nodes at once, for one owner: every create
    /// succeeds, her listing on either node names all forty once, and the listing's
    /// numbers came from PostgreSQL (its head row), not from a node's read-and-retry.
    /// Members added to one group through two nodes at once all stay: each node's change
    /// is a read-modify-write of one stored row, made under the group's cluster-wide lock
    /// from the row as stored (writing back the list a node held lost the other's adds).
    @Test func concurrentMemberChangesOnTwoNodesAllLand() async throws {
        let (cluster, tokens) = try Self.twoNodes()
        defer { cluster.drop() }
        let admin = tokens.mint(subject: "root", ttl: 3600, admin: true)
        let ports = cluster.nodes.map(\.port)
        let users = (0..<24).map { "member-\($0)" }
        let statuses = try await Self.statuses(ofCalls: users.count, over: ports) { index, port in
            try await recordsCall(
                port: port, "PUT", "/v1/admin/groups/team/crowd/members", token: admin, body: #"{"users":["\#(users[index])"]}"#
            ).status
        }
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        for port in ports {
            let listed = try await Self.polled(until: Set(users)) {
                let answer = try await recordsCall(port: port, "GET", "/v1/admin/groups/team/crowd", token: admin)
                return Set((answer.json as? [String: Any])?["members"] as? [String] ?? [])
            }
            #expect(listed == Set(users), "port \(port) lists \(listed.count) of \(users.count): missing \(Set(users).subtracting(listed).sorted())")
        }
    }

    /// A collection made through node A grants its members on node B, and members
    /// added to it through both nodes at once all stay (each node re-reads the row
    /// under the collection's cluster-wide lock; a `col` notice has the other re-read it).
    @Test func collectionsMadeOnOneNodeGrantOnTheOther() async throws {
        let (cluster, tokens) = try Self.twoNodes()
        defer { cluster.drop() }
        let cora = tokens.mint(subject: "cora", ttl: 3600)
        let rita = tokens.mint(subject: "rita", ttl: 3600)
        let ports = cluster.nodes.map(\.port)
        func call(_ node: Int, _ method: String, _ path: String, token: String, _ body: String? = nil) async throws -> RecordsResponse {
            try await recordsCall(port: ports[node], method, path, token: token, body: body)
        }
        #expect(try await call(0, "POST", "/v1/documents", token: cora, #"{"id":"shelf"}"#).status == 201)
        #expect(try await call(1, "GET", "/v1/documents/shelf", token: rita).status != 200)
        #expect(try await call(0, "POST", "/v1/collections", token: cora, #"{"id":"books"}"#).status == 201)
        #expect(try await call(0, "PUT", "/v1/collections/books/documents", token: cora, #"{"document":"shelf"}"#).status == 200)
        #expect(try await call(0, "PUT", "/v1/collections/books/members", token: cora, #"{"user":"rita","role":"reader"}"#).status == 200)

        let status = try await Self.polled(until: 200) { try await call(1, "GET", "/v1/documents/shelf", token: rita).status }
        #expect(status == 200, "B never let rita read the document through the collection made on A")

        let users = (0..<16).map { "reader-\($0)" }
        let statuses = try await Self.statuses(ofCalls: users.count, over: ports) { index, port in
            try await recordsCall(
                port: port, "PUT", "/v1/collections/books/members", token: cora,
                body: #"{"user":"\#(users[index])","role":"reader"}"#
            ).status
        }
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        let expected = Set(users + ["cora", "rita"])
        for node in 0..<2 {
            let members = try await Self.polled(until: expected) {
                Self.memberNames(try await call(node, "GET", "/v1/collections/books", token: cora))
            }
            #expect(members == expected, "node \(node) lists \(members.count) of \(expected.count)")
        }
    }

    /// Grants to one document made through two nodes at once all stay, and so do
    /// invitations to one address: each node changes the row as stored under its
    /// cluster-wide lock (from its cached row, the later write dropped the other's grants).
    @Test func concurrentSharesOnTwoNodesAllLand() async throws {
        let (cluster, tokens) = try Self.twoNodes()
        defer { cluster.drop() }
        let olivia = tokens.mint(subject: "olivia", ttl: 3600)
        let ports = cluster.nodes.map(\.port)
        #expect(try await recordsCall(port: ports[0], "POST", "/v1/documents", token: olivia, body: #"{"id":"plans"}"#).status == 201)
        for node in 0..<2 {  // both nodes have read (and cached) the row before the grants
            #expect(try await recordsCall(port: ports[node], "GET", "/v1/documents/plans/permissions", token: olivia).status == 200)
        }
        let users = (0..<16).map { "guest-\($0)" }
        let statuses = try await Self.statuses(ofCalls: users.count, over: ports) { index, port in
            try await recordsCall(
                port: port, "PUT", "/v1/documents/plans/permissions", token: olivia,
                body: #"{"user":"\#(users[index])","role":"reader"}"#
            ).status
        }
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        let expected = Set(users)  // the owner is not among the members
        for port in ports {
            let members = try await Self.polled(until: expected) {
                Self.memberNames(try await recordsCall(port: port, "GET", "/v1/documents/plans/permissions", token: olivia))
            }
            #expect(members == expected, "port \(port) lists \(members.count) of \(expected.count)")
        }
    }

    @Test func concurrentCreatesOnTwoNodesAreAllListed() async throws {
        let (cluster, _) = try Self.twoNodes()
        defer { cluster.drop() }
        let ports = cluster.nodes.map(\.port)
        let token = cluster.token
        let statuses = try await Self.statuses(ofCalls: 40, over: ports) { index, port in
            try await recordsCall(port: port, "POST", "/v1/documents", token: token, body: #"{"id":"made-\#(index)"}"#).status
        }
        #expect(statuses.allSatisfy { $0 == 201 }, "\(statuses.sorted())")
        for port in ports {
            var listed: [String] = []
            var cursor: String?
            repeat {
                let query = cursor.map { "&cursor=" + $0 } ?? ""
                let page = try await recordsCall(port: port, "GET", "/v1/me/documents?limit=100" + query, token: token)
                #expect(page.status == 200)
                let body = page.json as? [String: Any]
                listed += ((body?["documents"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
                cursor = body?["nextCursor"] as? String
            } while cursor != nil
            #expect(listed.count == 40, "listed on port \(port): \(listed.count)")
            #expect(Set(listed) == Set((0..<40).map { "made-\($0)" }))
        }
        let database = try PostgresConnection(url: cluster.url)
        let head = try database.query(
            "SELECT last FROM \(cluster.schema).accord_log_heads WHERE category = $1", [.text("server.owned")]
        ).firstInt64
        #expect(head == 40, "the owned listing's numbers come from its head row")
    }
}
