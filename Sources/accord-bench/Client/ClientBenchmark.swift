import AccordCRDT
import Foundation

/// `accord-bench client`: the sync client (`AccordClient`, AccordSync) against a real
/// `accord serve --dev` started as a subprocess, each case on a fresh server and fresh
/// client stores (SQLite files with the default, durable settings) in a scratch
/// directory. One JSON line per case: `name`, `p50_ms`, `p99_ms`, `median_ms`, `samples`
/// and the case's own figures.
struct ClientBenchmark: Sendable {
    var accordBinary = ServerBenchmark.siblingExecutable("accord")
    var tracePath = "../shared/traces/automerge-paper.json.gz"
    var quick = false
    var only: Set<String>?

    static let names = ["edit_to_remote_2", "edit_to_remote_50", "open_local_cached", "reconnect_catchup_10k"]

    var cases: [any ClientCase] {
        let all: [any ClientCase] = [
            EditToRemoteCase(clients: 2, edits: quick ? 50 : 300),
            EditToRemoteCase(clients: 50, edits: quick ? 10 : 60),
            OpenCachedCase(tracePath: tracePath, samples: quick ? 5 : 30),
            ReconnectCatchupCase(edits: 10_000, samples: quick ? 1 : 5),
        ]
        return all.filter { only?.contains($0.name) ?? true }
    }

    /// Runs every case, printing records as they come. Returns the exit status: 1 if any
    /// case failed (the others still ran).
    func run() -> Int32 {
        AsyncCases.run { await runCases() }
    }

    private func runCases() async -> Int32 {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("accord-bench-client-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        let environment = LoadEnvironment(workDirectory: work)
        let server = ServerUnderTest.accord(binary: accordBinary)
        var status: Int32 = 0
        for clientCase in cases {
            TraceBenchmark.log(clientCase.name)
            do {
                let files = try environment.serverFiles(clientCase.name)
                let running = try await server.launch(dataDirectory: files.data, logPath: files.log)
                do {
                    let stores = try environment.serverFiles(clientCase.name + "-clients").data
                    let record = try await clientCase.run(on: running, storeDirectory: stores)
                    try running.process.checkAlive()
                    await running.stop()
                    record.emit()
                } catch {
                    await running.stop()
                    throw error
                }
            } catch {
                TraceBenchmark.log("error: \(clientCase.name): \(error)")
                status = 1
            }
        }
        return status
    }

    static func parse(_ args: [String]) throws(BenchFailure) -> ClientBenchmark {
        var bench = ClientBenchmark()
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--quick": bench.quick = true
            case "--accord": bench.accordBinary = try words.value(arg)
            case "--trace": bench.tracePath = try words.value(arg)
            case "--only": bench.only = try words.names(arg, from: Self.names, kind: "case")
            default: throw BenchFailure.usage("unknown option '\(arg)'")
            }
        }
        return bench
    }
}

/// One measurement of `accord-bench client`, run against a freshly started server.
protocol ClientCase: Sendable {
    var name: String { get }
    /// Runs the case; client stores go in `storeDirectory` (empty, on the scratch disk).
    func run(on server: RunningServer, storeDirectory: String) async throws -> BenchRecord
}
