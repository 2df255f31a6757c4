import AccordCRDT
import AccordTesting
import Foundation

/// `accord-bench server`: load on a running sync server, driven through one
/// `WebSocketClientPool`, against Accord (`accord serve`) and the pycrdt-websocket
/// reference (scripts/pycrdt_ws_server.py). Each case runs once per target on a freshly
/// started server; a ratio line follows when both ran.
struct ServerBenchmark: Sendable {
    var targets: [ServerUnderTest.Kind] = [.accord, .pycrdt]
    var quick = false
    var only: Set<String>?
    var accordBinary = ServerBenchmark.siblingExecutable("accord")
    var python = ".venv/bin/python"
    var pycrdtScript = "scripts/pycrdt_ws_server.py"
    var tracePath = "../shared/traces/automerge-paper.json.gz"
    var idleConnections: Int?
    var seconds: Int?
    /// `--tls`: Accord serves wss:// (pycrdt is not run).
    var tls = false

    static let names = ["idle_connections", "fanout", "many_documents", "cold_open"]

    /// The cases at full scale, or at `--quick` scale for smoke runs.
    var cases: [any LoadCase] {
        let duration = Duration.seconds(seconds ?? (quick ? 3 : 10))
        let all: [any LoadCase] = [
            IdleConnectionsCase(connections: idleConnections ?? (quick ? 500 : 10_000), idleTime: .seconds(quick ? 1 : 3)),
            FanoutCase(clients: quick ? 20 : 100, duration: duration),
            ManyDocumentsCase(clients: quick ? 100 : 1000, documents: quick ? 10 : 100, duration: duration),
            ColdOpenCase(tracePath: tracePath, samples: quick ? 1 : 3),
        ]
        return all.filter { only?.contains($0.name) ?? true }
    }

    func server(_ kind: ServerUnderTest.Kind, tls: BenchTLS?) -> ServerUnderTest {
        switch kind {
        case .accord: .accord(binary: accordBinary, tls: tls)
        case .pycrdt: .pycrdt(python: python, script: pycrdtScript)
        }
    }

    /// Runs every case on every target, printing records as they come. Returns the exit
    /// status: 1 if any run failed (the others still ran and printed).
    func run() -> Int32 {
        AsyncCases.run { await runCases() }
    }

    private func runCases() async -> Int32 {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("accord-bench-server-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        let environment = LoadEnvironment(workDirectory: work)
        var pki: TestPKI?
        if tls {
            do {
                pki = try TestPKI()
            } catch {
                TraceBenchmark.log("error: --tls: cannot make a certificate: \(error)")
                return 1
            }
        }
        let benchTLS = pki.map { BenchTLS(certificateFile: $0.certificateFile, keyFile: $0.keyFile, caFile: $0.caFile) }
        var status: Int32 = 0
        for loadCase in cases {
            var records: [ServerUnderTest.Kind: BenchRecord] = [:]
            for kind in targets {
                TraceBenchmark.log("\(loadCase.name) on \(kind.rawValue)")
                do {
                    let cpuBefore = ProcessCPU.seconds()
                    var record = try await loadCase.run(on: server(kind, tls: benchTLS), in: environment)
                    record["client_cpu_s"] = BenchRecord.rounded(ProcessCPU.seconds() - cpuBefore)
                    record.emit()
                    records[kind] = record
                } catch {
                    TraceBenchmark.log("error: \(loadCase.name) on \(kind.rawValue): \(error)")
                    status = 1
                }
            }
            if let accord = records[.accord], let pycrdt = records[.pycrdt] {
                BenchRecord.ratio(case: loadCase.name, accord: accord, other: pycrdt, otherEngine: "pycrdt").emit()
            }
        }
        return status
    }

    /// `name` in the directory of this executable (swift build puts products together).
    static func siblingExecutable(_ name: String) -> String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return ((me as NSString).deletingLastPathComponent as NSString).appendingPathComponent(name)
    }

    static func parse(_ args: [String]) throws(BenchFailure) -> ServerBenchmark {
        var bench = ServerBenchmark()
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--target":
                let target = try words.value(arg)
                switch target {
                case "both": bench.targets = [.accord, .pycrdt]
                case "accord": bench.targets = [.accord]
                case "pycrdt": bench.targets = [.pycrdt]
                default: throw BenchFailure.usage("--target is accord, pycrdt or both, not '\(target)'")
                }
            case "--quick": bench.quick = true
            case "--only": bench.only = try words.names(arg, from: Self.names, kind: "case")
            case "--accord": bench.accordBinary = try words.value(arg)
            case "--python": bench.python = try words.value(arg)
            case "--pycrdt-server": bench.pycrdtScript = try words.value(arg)
            case "--trace": bench.tracePath = try words.value(arg)
            case "--idle-connections": bench.idleConnections = try words.count(arg)
            case "--seconds": bench.seconds = try words.count(arg)
            case "--tls": bench.tls = true
            default: throw BenchFailure.usage("unknown option '\(arg)'")
            }
        }
        if bench.tls { bench.targets = bench.targets.filter { $0 == .accord } }
        return bench
    }
}
