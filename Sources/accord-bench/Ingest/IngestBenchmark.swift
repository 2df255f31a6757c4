import Foundation

/// `accord-bench ingest`: loading records into one document of `accord serve`, through
/// an ingest session (ndjson chunks, one transaction) and through `records/bulk`
/// batches of 1,000 (one transaction each), each on a fresh server. One JSON line per
/// way: records, seconds, records_per_s, peak_rss_bytes (the server's VmHWM, Linux).
/// Targets: ingest at least 100,000 records/s with the server under 500 MB.
struct IngestBenchmark {
    static let usage = """
          accord-bench ingest [--records N] [--batch N] [--documents N] [--only a,b] [--accord PATH]
              N records (default 1,000,000) across three models into one document of
              accord serve --dev (a subprocess, fresh per case): ingest (an ingest
              session: 4 MiB ndjson chunks, one commit, applied as one transaction) and
              bulk (records/bulk batches of --batch, default 1,000). Lines: ingest_<N>,
              bulk_<N> with records_per_s and peak_rss_bytes (the server's VmHWM).
              Then bundles: accord documents export-all of --documents (default 1,000)
              documents of 10 records each, and import of that bundle into a second
              server: export_all_<N>, import_<N> with documents_per_s. --only picks
              ingest, bulk, bundles. Targets: 100,000 records/s with the server under
              500 MB; 200 documents/s.
        """

    var records = 1_000_000
    var batch = 1000
    var documents = 1000
    var only: Set<String>?
    var accordBinary = ServerBenchmark.siblingExecutable("accord")

    static let schema = """
        {"models": [
          {"name": "people", "fields": [{"name": "name", "type": "string"}, {"name": "age", "type": "number"}]},
          {"name": "places", "fields": [{"name": "city", "type": "string"}, {"name": "tags", "type": "stringset"}]},
          {"name": "visits", "fields": [{"name": "person", "type": "string"}, {"name": "done", "type": "boolean"}]}
        ]}
        """

    static func parse(_ args: [String]) throws(BenchFailure) -> IngestBenchmark {
        var bench = IngestBenchmark()
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--records": bench.records = try words.count(arg)
            case "--batch": bench.batch = try words.count(arg)
            case "--documents": bench.documents = try words.count(arg)
            case "--only": bench.only = Set(try words.value(arg).split(separator: ",").map(String.init))
            case "--accord": bench.accordBinary = try words.value(arg)
            default: throw BenchFailure.usage("unknown ingest option '\(arg)'")
            }
        }
        return bench
    }

    func run() -> Int32 {
        AsyncCases.run {
            do {
                if only?.contains("ingest") ?? true {
                    try await measure("ingest_\(records)") { client in try await ingest(client) }
                }
                if only?.contains("bulk") ?? true {
                    try await measure("bulk_\(records)") { client in try await bulk(client) }
                }
                if only?.contains("bundles") ?? true {
                    try await BundleBenchmark(documents: documents, accordBinary: accordBinary).run()
                }
                return 0
            } catch {
                TraceBenchmark.log("error: \(error)")
                return 1
            }
        }
    }

    /// The model and line of record `i` (`<id>\t<patch>`).
    static func line(_ i: Int) -> (model: String, text: String) {
        switch i % 3 {
        case 0: ("people", "p\(i)\t{\"name\":\"person \(i)\",\"age\":\(i % 90)}")
        case 1: ("places", "c\(i)\t{\"city\":\"city \(i)\",\"tags\":[\"t\(i % 7)\"]}")
        default: ("visits", "v\(i)\t{\"person\":\"p\(i - 2)\",\"done\":\(i % 2 == 0)}")
        }
    }

    /// Starts a fresh server, prepares the document, times `body`, prints the line.
    private func measure(_ name: String, _ body: (RESTClient) async throws -> Void) async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("accord-bench-ingest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let server = ServerUnderTest.accord(binary: accordBinary)
        let running = try await server.launch(dataDirectory: data.path, logPath: data.path + "/server.log")
        let client = RESTClient(port: running.port, token: running.token ?? "")
        try await client.call("POST", "/v1/documents", body: Data(#"{"id":"bench"}"#.utf8))
        try await client.call("PUT", "/v1/documents/bench/records/$schema", body: Data(Self.schema.utf8))
        let start = ContinuousClock.now
        do {
            try await body(client)
        } catch {
            await running.process.stop()
            throw error
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let count = try await countAll(client)
        let peak = Self.peakResidentBytes(pid: running.process.pid)
        await running.process.stop()
        guard count == records else { throw BenchFailure("\(name): the document holds \(count) records, not \(records)") }
        var record = BenchRecord(name: name, engine: "accord")
        record["records"] = .int(Int64(records))
        record["seconds"] = BenchRecord.rounded(seconds)
        record["records_per_s"] = .int(Int64(Double(records) / seconds))
        if let peak { record["peak_rss_bytes"] = .int(Int64(peak)) }
        record.emit()
    }

    private func ingest(_ client: RESTClient) async throws {
        let base = "/v1/documents/bench/records/$ingests"
        let session = try await client.call("POST", base, body: Data("{}".utf8)) as? [String: Any]
        guard let id = (session?["result"] as? [String: Any])?["id"] as? String else { throw BenchFailure("no session id") }
        var chunks: [String: Data] = [:]
        func send(_ model: String) async throws {
            guard let chunk = chunks[model], !chunk.isEmpty else { return }
            try await client.call("POST", "\(base)/\(id)/chunks?model=\(model)", body: chunk)
            chunks[model] = Data()
        }
        for i in 0..<records {
            let (model, text) = Self.line(i)
            chunks[model, default: Data()].append(contentsOf: Array(text.utf8) + [UInt8(ascii: "\n")])
            if chunks[model]!.count >= 4 << 20 { try await send(model) }
        }
        for model in ["people", "places", "visits"] { try await send(model) }
        try await client.call("POST", "\(base)/\(id)/commit", body: Data("{}".utf8))
        while true {
            let state = ((try await client.call("GET", "\(base)/\(id)") as? [String: Any])?["result"] as? [String: Any])?["state"] as? String
            if state == "complete" { return }
            if state == "failed" || state == nil { throw BenchFailure("ingest session \(id) ended \(state ?? "unknown")") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func bulk(_ client: RESTClient) async throws {
        var start = 0
        while start < records {
            let end = min(start + batch, records)
            var operations: [String] = []
            operations.reserveCapacity(end - start)
            for i in start..<end {
                let (model, text) = Self.line(i)
                let tab = text.firstIndex(of: "\t")!
                operations.append(#"{"op":"create","model":"\#(model)","id":"\#(text[..<tab])","value":\#(text[text.index(after: tab)...])}"#)
            }
            try await client.call("POST", "/v1/documents/bench/records/bulk", body: Data(#"{"operations":[\#(operations.joined(separator: ","))]}"#.utf8))
            start = end
        }
    }

    private func countAll(_ client: RESTClient) async throws -> Int {
        var total = 0
        for model in ["people", "places", "visits"] {
            let answer = try await client.call("POST", "/v1/documents/bench/records/\(model)/count", body: Data("{}".utf8)) as? [String: Any]
            total += ((answer?["result"] as? [String: Any])?["count"] as? Int) ?? 0
        }
        return total
    }

    /// The process's peak resident set: `VmHWM` of `/proc/<pid>/status` (nil off Linux).
    static func peakResidentBytes(pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kb = Int(parts[1]) { return kb * 1024 }
        }
        return nil
    }
}
