import Foundation

/// The export/import half of `accord-bench ingest`: `accord documents export-all` of N
/// documents (each with a records schema and 10 records) from one fresh server, and
/// `accord documents import` of that bundle into another; documents/s for each.
/// Target: at least 200 documents/s.
struct BundleBenchmark {
    var documents = 1000
    var accordBinary: String

    func run() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("accord-bench-bundle-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let source = try await ServerUnderTest.accord(binary: accordBinary)
            .launch(dataDirectory: work + "/a", logPath: work + "/a.log")
        let target = try await ServerUnderTest.accord(binary: accordBinary)
            .launch(dataDirectory: work + "/b", logPath: work + "/b.log")
        do {
            let client = RESTClient(port: source.port, token: source.token ?? "")
            for i in 0..<documents {
                try await client.call("POST", "/v1/documents", body: Data(#"{"id":"doc\#(i)","title":"Document \#(i)"}"#.utf8))
                try await client.call("PUT", "/v1/documents/doc\(i)/records/$schema", body: Data(IngestBenchmark.schema.utf8))
                let operations = (0..<10).map { j in
                    #"{"op":"create","model":"people","id":"p\#(j)","value":{"name":"person \#(j)","age":\#(j)}}"#
                }
                try await client.call(
                    "POST", "/v1/documents/doc\(i)/records/bulk",
                    body: Data(#"{"operations":[\#(operations.joined(separator: ","))]}"#.utf8))
            }
            let bundle = work + "/bundle"
            let exportSeconds = try accord(["documents", "export-all", "--output", bundle], source)
            emit("export_all_\(documents)", exportSeconds)
            let importSeconds = try accord(["documents", "import", bundle], target)
            emit("import_\(documents)", importSeconds)
        } catch {
            await source.process.stop()
            await target.process.stop()
            throw error
        }
        await source.process.stop()
        await target.process.stop()
    }

    /// Runs the CLI against `server` and returns its wall time in seconds.
    private func accord(_ arguments: [String], _ server: RunningServer) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: accordBinary)
        process.arguments = arguments + ["--server", "http://127.0.0.1:\(server.port)", "--token", server.token ?? ""]
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        let start = ContinuousClock.now
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - start
        guard process.terminationStatus == 0 else {
            throw BenchFailure("accord \(arguments.joined(separator: " ")) failed: \(String(decoding: stderr, as: UTF8.self).suffix(500))")
        }
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private func emit(_ name: String, _ seconds: Double) {
        var record = BenchRecord(name: name, engine: "accord")
        record["documents"] = .int(Int64(documents))
        record["seconds"] = BenchRecord.rounded(seconds)
        record["documents_per_s"] = .int(Int64(Double(documents) / seconds))
        record.emit()
    }
}
