import AccordCRDT
import AccordNet
import AccordServer
import AccordStore
import Foundation

/// `grant_fanout` (in `accord-bench directory`): an in-process server, a group of
/// `members` users each connected once on `/v1/sync` (a pooled WebSocket per member,
/// decoding frames as an Accord client does); the owner changes the group's grant on a
/// document over real HTTP (`PUT /v1/documents/{id}/groups`, reader and read-write in
/// turn), and each sample runs from just before the request until every member has
/// received its `PermissionEvent`. Target: under 1 s at 1,000 members.
struct GrantFanoutCase {
    var members: Int
    var samples: Int
    var directory: String

    func run() async throws -> BenchRecord {
        let path = directory + "/accord-bench-fanout-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try DocumentStore(path: path)
        let tokens = try TokenAuthority(secret: Array("accord-bench-grant-fanout-secret-0123".utf8))
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        configuration.maxConnectionsPerAddress = 0
        let server = try AccordServer(configuration: configuration, documents: store, tokens: tokens)
        let group = try GroupKey(groupType: "bench", groupID: "everyone")
        let users = (0..<members).map { "member-\($0)" }
        try server.directory.access.groups.update(group, adding: Set(users))
        try server.directory.create("fanout", owner: "owner")

        let tally = PermissionTally(expected: members)
        let pool = try WebSocketClientPool(name: "bench.fanout")
        // Connect in batches: each upgrade holds a not-yet-WebSocket connection.
        var sockets: [PooledWebSocket] = []
        for batch in stride(from: 0, to: members, by: 100) {
            try await withThrowingTaskGroup(of: PooledWebSocket.self) { tasks in
                for user in users[batch..<min(members, batch + 100)] {
                    let url = "ws://127.0.0.1:\(server.port)/v1/sync?token=\(tokens.mint(subject: user, ttl: 3600))"
                    tasks.addTask {
                        try await pool.connect(to: url) { event in
                            guard case .message(let bytes) = event, let frame = try? MultiplexedFrame.decode(bytes) else { return }
                            switch frame.accordMessage {
                            case .hello?: tally.hello()
                            case .directory(.permissionChanged(_, _, _, _))?: tally.permission()
                            default: break
                            }
                        }
                    }
                }
                for try await socket in tasks { sockets.append(socket) }
            }
        }
        guard await tally.waitForHellos(members, timeout: .seconds(30)) else {
            throw BenchFailure("grant_fanout: not every member connected")
        }

        let http = try HTTPClient()
        let ownerToken = tokens.mint(subject: "owner", ttl: 3600)
        var times: [Double] = []
        let clock = ContinuousClock()
        for sample in 0...samples {
            let role = sample.isMultiple(of: 2) ? "reader" : "read-write"
            tally.reset()
            let started = clock.now
            let response = try await http.send(
                HTTPClientRequest(
                    .put, "http://127.0.0.1:\(server.port)/v1/documents/fanout/groups",
                    headers: [("authorization", "Bearer \(ownerToken)"), ("content-type", "application/json")],
                    body: Array(#"{"groupType":"bench","groupId":"everyone","role":"\#(role)"}"#.utf8)),
                timeout: .seconds(30))
            guard response.status == 200 else { throw BenchFailure("grant_fanout: the grant answered \(response.status)") }
            guard await tally.waitForPermissions(timeout: .seconds(30)) else {
                throw BenchFailure("grant_fanout: \(tally.permissions) of \(members) members told after 30 s")
            }
            let elapsed = Timing.milliseconds(clock.now - started)
            if sample > 0 { times.append(elapsed) }  // the first one warms up
        }
        await pool.stop()
        try await server.stop()
        try store.close()

        var record = BenchRecord(name: "grant_fanout", trace: "group_\(members)", timing: Timing(samples: times, warmup: 0))
        let sorted = times.sorted()
        record["p50_ms"] = BenchRecord.rounded(sorted[sorted.count / 2])
        record["max_ms"] = BenchRecord.rounded(sorted.last ?? 0)
        record["members"] = BenchRecord.int(members)
        return record
    }
}

/// Counts hellos and PermissionEvents from the pool's service thread.
private final class PermissionTally: @unchecked Sendable {
    // Invariant: the counters are only touched while `lock` is held.
    private let lock = NSLock()
    private var hellos = 0
    private var told = 0
    let expected: Int

    init(expected: Int) { self.expected = expected }

    func hello() { lock.withLock { hellos += 1 } }
    func permission() { lock.withLock { told += 1 } }
    func reset() { lock.withLock { told = 0 } }
    var permissions: Int { lock.withLock { told } }

    func waitForHellos(_ count: Int, timeout: Duration) async -> Bool {
        await poll(timeout) { self.lock.withLock { self.hellos >= count } }
    }

    func waitForPermissions(timeout: Duration) async -> Bool {
        await poll(timeout) { self.lock.withLock { self.told >= self.expected } }
    }

    private func poll(_ timeout: Duration, _ done: @escaping () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !done() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }
}
