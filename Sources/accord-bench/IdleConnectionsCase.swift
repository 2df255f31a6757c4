import Foundation

/// `idle_connections`: how many connections the server holds, and its memory with them.
/// Each client syncs an (empty) document, `perDocument` clients to a document, then
/// all stay connected without sending anything for `idleTime`; the server's RSS is read
/// after that. `rss_baseline_bytes` is its RSS before the first connection.
struct IdleConnectionsCase: LoadCase {
    let name = "idle_connections"
    var connections: Int
    var perDocument = 10
    var idleTime: Duration = .seconds(3)

    func run(on server: ServerUnderTest, in environment: LoadEnvironment) async throws -> BenchRecord {
        try await withServer(server, environment) { running in
            let baseline = running.residentBytes()
            let fleet = try running.fleet()
            let perDocument = self.perDocument
            let start = ContinuousClock.now
            let (clients, failures) = await fleet.open(
                count: connections, url: { running.roomURL("idle-\($0 / perDocument)") }, make: { _ in try SyncClient() })
            let openTime = ContinuousClock.now - start
            if !failures.isEmpty {
                TraceBenchmark.log("\(name): \(failures.count) of \(connections) clients failed, first: \(failures[0])")
            }
            try await Task.sleep(for: idleTime)
            let opened = clients.compactMap { $0 }
            let held = opened.filter { $0.closed == nil }.count
            let rss = running.residentBytes()
            await fleet.stop()

            var record = record(for: server)
            record["connections"] = BenchRecord.int(held)
            record["connections_wanted"] = BenchRecord.int(connections)
            record["documents"] = BenchRecord.int((connections + perDocument - 1) / perDocument)
            record.setBytes("rss_bytes", rss)
            record.setBytes("rss_baseline_bytes", baseline)
            if let rss, let baseline, held > 0 { record["rss_per_connection_bytes"] = BenchRecord.int((rss - baseline) / held) }
            record["open_s"] = BenchRecord.rounded(Timing.milliseconds(openTime) / 1000)
            record["failed"] = BenchRecord.int(failures.count)
            record.setMalformed(opened, case: name)
            return record
        }
    }
}
