import AccordCRDT
import AccordNet
import AccordStore
import AccordSync
import AccordTesting
import Foundation

/// `accord-bench blobs`: blobs through `accord serve --dev` on 127.0.0.1 with the
/// Accord client (SQLite stores, default options), beside plain `curl` moving a file
/// of the same size to and from the same server in the same run. One JSON line each:
///
/// - `upload_100MB`: from the moment `put(fileURL:)` returned (the blob is stored and
///   queued locally; that time is `local_put_ms`) to the server's acknowledgement;
///   curl `PUT`s a different file of the same size.
/// - `download_100MB`: a second client fetches the blob into its store (streamed into
///   the store's file, verified by hash, synced) with `pin`; curl `GET`s the same blob
///   to a file.
///
///   Both are sampled (`--samples`, 5 by default; ``LargeBlobTransfers``): the figures
///   are medians, `ratio_to_curl` the median of the per-sample ratios (each pair ran
///   back to back, alternating which went first), with `ratio_min`/`ratio_max` and the
///   per-sample `ratios` beside it.
/// - `small_blobs_1k`: 1,000 blobs of 10 KB put on one client with one `putBlobs`
///   (each attached in the document, in one edit), uploaded, then read on a second
///   client (8 reads at a time), end to end.
/// - `cache_hit_read`: `data(for:)` of a 10 KB blob already on the device (µs).
struct BlobsBenchmark: Sendable {
    var accordBinary = ServerBenchmark.siblingExecutable("accord")
    var megabytes = 100
    var smallBlobs = 1000
    /// Samples of each large transfer (Accord and curl each move new content once per sample).
    var samples = 5
    var only: Set<String>?

    static let names = ["upload_100MB", "download_100MB", "small_blobs_1k", "cache_hit_read"]

    static func parse(_ args: [String]) throws(BenchFailure) -> BlobsBenchmark {
        var bench = BlobsBenchmark()
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--quick":
                bench.megabytes = 20
                bench.smallBlobs = 200
                bench.samples = 3
            case "--accord": bench.accordBinary = try words.value(arg)
            case "--mb": bench.megabytes = try words.count(arg)
            case "--samples": bench.samples = max(1, try words.count(arg))
            case "--only": bench.only = try words.names(arg, from: Self.names, kind: "case")
            default: throw BenchFailure.usage("unknown option '\(arg)'")
            }
        }
        return bench
    }

    func run() -> Int32 {
        AsyncCases.run { await runAll() }
    }

    private func wants(_ name: String) -> Bool { only?.contains(name) ?? true }

    private func runAll() async -> Int32 {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("accord-bench-blobs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: work) }
        let environment = LoadEnvironment(workDirectory: work)
        var server = ServerUnderTest.accord(binary: accordBinary)
        server = ServerUnderTest(kind: .accord, command: server.command + ["--max-blob-bytes", String(4 << 30)])
        do {
            let files = try environment.serverFiles("server")
            let running = try await server.launch(dataDirectory: files.data, logPath: files.log)
            do {
                try await measure(running, work: work)
                try running.process.checkAlive()
                await running.stop()
            } catch {
                await running.stop()
                throw error
            }
            return 0
        } catch {
            TraceBenchmark.log("error: blobs: \(error)")
            return 1
        }
    }

    private func measure(_ server: RunningServer, work: String) async throws {
        let clients = BenchClients(server: server, directory: try LoadEnvironment(workDirectory: work).serverFiles("clients").data)
        let (phone, _) = try clients.client("phone")
        let (laptop, _) = try clients.client("laptop")
        await phone.start()
        await laptop.start()
        defer {
            Task { await phone.stop() }
            Task { await laptop.stop() }
        }
        let token = server.token ?? ""
        let base = "http://127.0.0.1:\(server.port)/v1/documents"
        let document: DocumentID = "bench"
        try await phone.create(document)
        try await BenchClients.waitUntil("the document reached the server") { await phone.isSynced(document) }

        if wants("upload_100MB") || wants("download_100MB") {
            let transfers = LargeBlobTransfers(
                phone: phone, laptop: laptop, document: document, base: base, token: token, work: work,
                megabytes: megabytes, samples: samples)
            let results = try await transfers.run(download: wants("download_100MB"))
            if wants("upload_100MB") { uploadRecord(results).emit() }
            if wants("download_100MB") { downloadRecord(results).emit() }
        }

        if wants("small_blobs_1k") {
            let small: DocumentID = "small"
            try await phone.create(small)
            try await BenchClients.waitUntil("the small document reached the server") { await phone.isSynced(small) }
            try await laptop.open(small)
            let count = smallBlobs
            var random = SplitMix64(seed: 3)
            let payloads = (0..<count).map { _ in (0..<10_240).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
            let start = ContinuousClock.now
            // As an app attaching many files at once: one batch put (the small blobs
            // share one commit with their queue entries), one edit attaching them all.
            let blobs = try await phone.putBlobs(small, payloads.map { (data: $0, contentType: "application/octet-stream", name: nil) })
            let values = blobs.map { $0.toJSON() }
            try await phone.withDocument(small) { doc in
                let files = try doc.getMap("files")
                for (index, value) in values.enumerated() { try files.set("f\(index)", value) }
            }
            let putAt = ContinuousClock.now
            // Polled every 5 ms, not every 1: the check sorts the queue on the client's
            // actor, which also runs the uploads being timed.
            let uploadDeadline = ContinuousClock.now + .seconds(300)
            while try await !phone.pendingBlobUploads(small).isEmpty {
                guard ContinuousClock.now < uploadDeadline else { throw BenchFailure("timed out: every small blob uploaded") }
                try await Task.sleep(for: .milliseconds(5))
            }
            let uploadedAt = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                var next = 0
                func add() {
                    let blob = blobs[next]
                    next += 1
                    group.addTask { _ = try await laptop.blobData(small, blob) }
                }
                for _ in 0..<min(8, count) { add() }
                while try await group.next() != nil { if next < count { add() } }
            }
            let total = Self.seconds(ContinuousClock.now - start)
            var record = BenchRecord(name: "small_blobs_1k", engine: "accord")
            record["blobs"] = BenchRecord.int(count)
            record["seconds"] = .double((total * 1000).rounded() / 1000)
            record["blobs_per_s"] = .double((Double(count) / total).rounded())
            record["put_seconds"] = .double((Self.seconds(putAt - start) * 1000).rounded() / 1000)
            record["upload_seconds"] = .double((Self.seconds(uploadedAt - start) * 1000).rounded() / 1000)
            record["note"] = "putBlobs (one batch) + one edit attaching all, uploads (queue, small ones 8 at a time), reads on a second client 8 at a time"
            record.emit()
        }

        if wants("cache_hit_read") {
            let blob = try await phone.putBlob(document, data: [UInt8](repeating: 7, count: 10_240), contentType: "text/plain")
            var samples: [Double] = []
            for _ in 0..<50 { _ = try await phone.blobData(document, blob, waitForLoad: .local) }
            for _ in 0..<2000 {
                let start = ContinuousClock.now
                _ = try await phone.blobData(document, blob, waitForLoad: .local)
                samples.append(Self.seconds(ContinuousClock.now - start) * 1_000_000)
            }
            samples.sort()
            var record = BenchRecord(name: "cache_hit_read", engine: "accord")
            record["median_us"] = .double((samples[samples.count / 2] * 10).rounded() / 10)
            record["p99_us"] = .double((samples[samples.count * 99 / 100] * 10).rounded() / 10)
            record["bytes"] = BenchRecord.int(10_240)
            record["samples"] = BenchRecord.int(samples.count)
            record.emit()
        }
    }

    private func uploadRecord(_ results: LargeBlobTransfers.Results) -> BenchRecord {
        var record = BenchRecord(name: "upload_\(megabytes)MB", engine: "accord")
        transferFigures(results.uploads, into: &record)
        record["local_put_ms"] = SampleSpread.round(SampleSpread(values: results.localPutMilliseconds).median, 3)
        return record
    }

    private func downloadRecord(_ results: LargeBlobTransfers.Results) -> BenchRecord {
        var record = BenchRecord(name: "download_\(megabytes)MB", engine: "accord")
        transferFigures(results.downloads, into: &record)
        let mb = Double(megabytes)
        let synced = SampleSpread(values: results.curlSynced).median
        record["curl_synced_mb_per_s"] = SampleSpread.round(mb / synced, 1)
        let syncedRatios = zip(results.downloads, results.curlSynced).map { pair, synced in synced / pair.accord }
        record["ratio_to_curl_synced"] = SampleSpread.round(SampleSpread(values: syncedRatios).median, 2)
        record["transport_only_mb_per_s"] = SampleSpread.round(mb / SampleSpread(values: results.transportOnly).median, 1)
        record["note"] = "medians; accord: into the client's store, verified and synced; curl: to a file (curl_synced: then fsync)"
        return record
    }

    /// The figures both large transfers report: medians, then the spread.
    private func transferFigures(_ pairs: [LargeBlobTransfers.Pair], into record: inout BenchRecord) {
        let mb = Double(megabytes)
        let accord = SampleSpread(values: pairs.map(\.accord))
        let curl = SampleSpread(values: pairs.map(\.curl))
        let ratios = SampleSpread(values: pairs.map(\.ratio))
        record["mb_per_s"] = SampleSpread.round(mb / accord.median, 1)
        record["seconds"] = SampleSpread.round(accord.median, 3)
        record["curl_mb_per_s"] = SampleSpread.round(mb / curl.median, 1)
        record["ratio_to_curl"] = SampleSpread.round(ratios.median, 2)
        record["samples"] = BenchRecord.int(pairs.count)
        record["ratio_min"] = SampleSpread.round(ratios.min, 2)
        record["ratio_max"] = SampleSpread.round(ratios.max, 2)
        record["ratios"] = ratios.list(2)
        record["mb_per_s_min"] = SampleSpread.round(mb / accord.max, 1)
        record["mb_per_s_max"] = SampleSpread.round(mb / accord.min, 1)
        record["curl_mb_per_s_min"] = SampleSpread.round(mb / curl.max, 1)
        record["curl_mb_per_s_max"] = SampleSpread.round(mb / curl.min, 1)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Runs curl; returns the seconds it took (wall clock, the process included, as a
    /// user running curl would see).
    static func curl(_ arguments: [String], url: String, token: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-f", "-H", "Authorization: Bearer \(token)"] + arguments + [url]
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let elapsed = seconds(ContinuousClock.now - start)
        guard process.terminationStatus == 0 else { throw BenchFailure("curl \(arguments.first ?? "") \(url) failed") }
        return elapsed
    }

    static func sha256(file path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(String(decoding: output, as: UTF8.self).prefix(64))
    }

    static func writeRandomFile(_ path: String, bytes: Int, seed: UInt64) throws {
        FileManager.default.createFile(atPath: path, contents: nil)
        guard let handle = FileHandle(forWritingAtPath: path) else { throw BenchFailure("cannot write \(path)") }
        defer { try? handle.close() }
        var random = SplitMix64(seed: seed)
        var remaining = bytes
        var piece = [UInt8](repeating: 0, count: 1 << 20)
        while remaining > 0 {
            let count = min(remaining, piece.count)
            piece.withUnsafeMutableBytes { raw in
                let words = raw.bindMemory(to: UInt64.self)
                for index in words.indices { words[index] = random.next() }
            }
            handle.write(Data(piece[..<count]))
            remaining -= count
        }
    }
}

/// Counts a response body's bytes and drops them.
final class CountingSink: HTTPResponseSink, @unchecked Sendable {
    // Invariant: touched by the HTTP client's service thread only while the request runs.
    var bytes = 0
    func accepts(status: Int, headers: [String: String]) -> Bool { status == 200 }
    func write(_ piece: UnsafeRawBufferPointer) throws(NetError) { bytes += piece.count }
}
