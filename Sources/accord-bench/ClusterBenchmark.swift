import AccordNet
import AccordPostgres
import Foundation

/// `accord-bench cluster`: many_documents (clients over documents, one update per
/// client per second) on 1 node with SQLite, 1 node with PostgreSQL, and 2 and 3
/// `--cluster` nodes on PostgreSQL, in one run. A document's clients are spread over
/// the nodes, so most deliveries cross nodes; `cross_p50_ms` / `cross_p99_ms` count only
/// those. Also per-node RSS and PostgreSQL transactions per edit (commits and rollbacks
/// of the database, from `pg_stat_database`, over edits sent: every statement outside a
/// pipeline is a transaction of its own, so reads count too).
struct ClusterBenchmark: Sendable {
    var postgres: String
    var quick = false
    var seconds: Int?
    var clients: Int?
    var documents: Int?
    var accordBinary = ServerBenchmark.siblingExecutable("accord")

    func run() -> Int32 {
        AsyncCases.run { await runSetups() }
    }

    private func runSetups() async -> Int32 {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("accord-bench-cluster-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        var status: Int32 = 0
        for (label, nodes, onPostgres) in [("sqlite_1", 1, false), ("postgres_1", 1, true), ("postgres_2", 2, true), ("postgres_3", 3, true)] {
            TraceBenchmark.log("many_documents on \(label)")
            do {
                try await runOne(label: label, nodes: nodes, onPostgres: onPostgres, work: work).emit()
            } catch {
                TraceBenchmark.log("error: cluster \(label): \(error)")
                status = 1
            }
        }
        return status
    }

    private func runOne(label: String, nodes: Int, onPostgres: Bool, work: String) async throws -> BenchRecord {
        let schema = "bench_" + label + "_" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let database = try PostgresConnection(url: postgres)
        defer { _ = try? database.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        let environment = LoadEnvironment(workDirectory: work)
        var servers: [RunningServer] = []
        defer { for server in servers { Task { await server.stop() } } }
        for node in 0..<nodes {
            let files = try environment.serverFiles("\(label)-node\(node)")
            if node > 0 {
                // Every node signs with the first node's dev secret, so its token works on all.
                try FileManager.default.copyItem(
                    atPath: work + "/\(label)-node0/dev.secret", toPath: files.data + "/dev.secret")
            }
            var command = ServerUnderTest.accord(binary: accordBinary).command
            if onPostgres { command += ["--postgres", postgres, "--postgres-schema", schema] }
            if nodes > 1 { command += ["--cluster"] }
            servers.append(try await ServerUnderTest(kind: .accord, command: command)
                .launch(dataDirectory: files.data, logPath: files.log))
        }
        let clients = self.clients ?? (quick ? 100 : 1000)
        let documents = self.documents ?? (quick ? 10 : 100)
        let duration = seconds ?? (quick ? 3 : 10)
        // Client i edits document i % documents on node (i / documents) % nodes: each
        // document's clients take turns over the nodes.
        func node(of index: Int) -> Int { (index / documents) % nodes }
        let book = LatencyBook()
        let cross = CrossNodeDeliveries()
        let fleet = try ClientFleet()
        let urls = servers
        let (opened, failures) = await fleet.open(
            count: clients, url: { urls[(($0 / documents) % nodes)].roomURL("many-\($0 % documents)") },
            make: { index in
                try SyncClient { text, instant in
                    book.received(text, at: instant)
                    cross.received(text, at: instant, on: (index / documents) % nodes)
                }
            })
        guard failures.isEmpty else { throw BenchFailure("\(failures.count) of \(clients) clients failed; first: \(failures[0])") }
        let all = opened.compactMap { $0 }
        var perDocument = [Int](repeating: 0, count: documents)
        for index in 0..<clients { perDocument[index % documents] += 1 }

        let transactionsBefore = try Self.transactions(database)
        let start = ContinuousClock.now
        var expected = 0
        for second in 0..<duration {
            for index in 0..<clients {
                let due = start + .seconds(second) + .seconds(1) * (Double(index) / Double(clients))
                if due > .now + .microseconds(500) { try await Task.sleep(until: due, clock: .continuous) }
                let marker = book.stamp()
                cross.sent(marker, at: .now, from: node(of: index))
                try all[index].append(marker)
                expected += perDocument[index % documents] - 1
            }
        }
        let complete = await ClientFleet.drain(book, expected: expected, timeout: .seconds(10))
        if !complete { TraceBenchmark.log("cluster \(label): \(book.delivered) of \(expected) deliveries after 10 s") }
        let transactions = try Self.transactions(database) - transactionsBefore
        let rss = servers.map { $0.residentBytes() ?? 0 }
        let http = try HTTPClient()
        var nodeMetrics: [ClusterNodeMetrics] = []
        for server in servers { nodeMetrics.append(try await ClusterNodeMetrics.fetch(port: server.port, http: http)) }
        for server in servers { try server.process.checkAlive() }
        await fleet.stop()

        var record = BenchRecord(name: "cluster_many_documents_\(label)", engine: "accord")
        record["nodes"] = BenchRecord.int(nodes)
        record["storage"] = .string(onPostgres ? "postgres" : "sqlite")
        record["connections"] = BenchRecord.int(all.count)
        record["documents"] = BenchRecord.int(documents)
        record["duration_s"] = BenchRecord.int(duration)
        record.setDeliveries(book, expected: expected)
        if nodes > 1 {
            record["cross_node_deliveries"] = BenchRecord.int(cross.count)
            record["cross_p50_ms"] = BenchRecord.rounded(cross.percentile(0.5))
            record["cross_p99_ms"] = BenchRecord.rounded(cross.percentile(0.99))
        }
        // Where the time went (bucket bounds, see ClusterNodeMetrics): append to commit
        // on the writing node, notice to relay on the reading nodes.
        if let value = ClusterNodeMetrics.percentile("accord_persist_latency_milliseconds", 0.5, over: nodeMetrics) {
            record["commit_p50_ms_at_most"] = BenchRecord.rounded(value)
        }
        if let value = ClusterNodeMetrics.percentile("accord_persist_latency_milliseconds", 0.99, over: nodeMetrics) {
            record["commit_p99_ms_at_most"] = BenchRecord.rounded(value)
        }
        if nodes > 1 {
            if let value = ClusterNodeMetrics.percentile("accord_cluster_notice_apply_milliseconds", 0.5, over: nodeMetrics) {
                record["notice_apply_p50_ms_at_most"] = BenchRecord.rounded(value)
            }
            if let value = ClusterNodeMetrics.percentile("accord_cluster_notice_apply_milliseconds", 0.99, over: nodeMetrics) {
                record["notice_apply_p99_ms_at_most"] = BenchRecord.rounded(value)
            }
            record["cluster_log_reads"] = BenchRecord.int(ClusterNodeMetrics.total("accord_cluster_log_reads_total", over: nodeMetrics))
        }
        record["rss_bytes_per_node"] = .array(rss.map { BenchRecord.int($0) })
        if onPostgres {
            record["pg_transactions_per_edit"] = BenchRecord.rounded(Double(transactions) / Double(max(1, book.sent)))
        }
        record.setMalformed(all, case: "cluster_\(label)")
        for server in servers { await server.stop() }
        servers = []
        return record
    }

    /// Commits and rollbacks of the current database so far (the statistics collector's
    /// view, which lags by up to its flush interval; a snapshot is forced first).
    private static func transactions(_ database: PostgresConnection) throws -> Int64 {
        _ = try? database.query("SELECT pg_stat_force_next_flush()")
        return try database.query(
            "SELECT (xact_commit + xact_rollback)::bigint FROM pg_stat_database WHERE datname = current_database()"
        ).firstInt64 ?? 0
    }

    static func parse(_ args: [String]) throws(BenchFailure) -> ClusterBenchmark {
        var postgres = ProcessInfo.processInfo.environment["ACCORD_POSTGRES_URL"]
        var bench = ClusterBenchmark(postgres: "")
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--postgres": postgres = try words.value(arg)
            case "--quick": bench.quick = true
            case "--seconds": bench.seconds = try words.count(arg)
            case "--clients": bench.clients = try words.count(arg)
            case "--documents": bench.documents = try words.count(arg)
            case "--accord": bench.accordBinary = try words.value(arg)
            default: throw BenchFailure.usage("unknown option '\(arg)'")
            }
        }
        guard let postgres, !postgres.isEmpty else {
            throw BenchFailure.usage("cluster needs --postgres URL (or ACCORD_POSTGRES_URL; scripts/postgres.sh starts one)")
        }
        bench.postgres = postgres
        return bench
    }
}

/// Latencies of the deliveries whose receiver is on another node than the sender.
final class CrossNodeDeliveries: @unchecked Sendable {
    // Invariant: every `var` is only touched with `lock` held.
    private let lock = NSLock()
    private var senders: [Int: (node: Int, at: ContinuousClock.Instant)] = [:]
    private var latencies: [Double] = []

    func sent(_ marker: String, at instant: ContinuousClock.Instant, from node: Int) {
        guard let index = LatencyBook.markers(in: marker).first else { return }
        lock.withLock { senders[index] = (node, instant) }
    }

    func received(_ text: String, at instant: ContinuousClock.Instant, on node: Int) {
        let markers = LatencyBook.markers(in: text)
        lock.withLock {
            for marker in markers {
                guard let sender = senders[marker], sender.node != node else { continue }
                latencies.append(Timing.milliseconds(instant - sender.at))
            }
        }
    }

    var count: Int { lock.withLock { latencies.count } }

    func percentile(_ p: Double) -> Double {
        let sorted = lock.withLock { latencies.sorted() }
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
    }
}
