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
/// - `upload_100MB` / `upload_100MB_curl`: from the moment `put(fileURL:)` returned
///   (the blob is stored and queued locally; that time is `local_put_ms`) to the
///   server's acknowledgement; curl `PUT`s a different file of the same size.
/// - `download_100MB` / `download_100MB_curl`: a second client fetches the blob into
///   its store (streamed into the store's file, verified by hash, synced) with `pin`;
///   curl `GET`s the same blob to a file.
/// - `small_blobs_1k`: 1,000 blobs of 10 KB put on one client with one `putBlobs`
///   (each attached in the document, in one edit), uploaded, then read on a second
///   client (8 reads at a time), end to end.
/// - `cache_hit_read`: `data(for:)` of a 10 KB blob already on the device (µs).
struct BlobsBenchmark: Sendable {
    var accordBinary = ServerBenchmark.siblingExecutable("accord")
    var megabytes = 100
    var smallBlobs = 1000
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
            case "--accord": bench.accordBinary = try words.value(arg)
            case "--mb": bench.megabytes = try words.count(arg)
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
            let size = megabytes << 20
            let ours = (work as NSString).appendingPathComponent("ours.bin")
            let theirs = (work as NSString).appendingPathComponent("curl.bin")
            try Self.writeRandomFile(ours, bytes: size, seed: 1)
            try Self.writeRandomFile(theirs, bytes: size, seed: 2)
            let mb = Double(size) / Double(1 << 20)

            let uploaded = phone.expectEvent(BlobUploadedEvent.self)
            let putStart = ContinuousClock.now
            let blob = try await phone.putBlob(document, fileURL: URL(fileURLWithPath: ours), contentType: "application/octet-stream")
            let uploadStart = ContinuousClock.now
            _ = try await uploaded.value(timeout: .seconds(600))
            let upload = Self.seconds(ContinuousClock.now - uploadStart)
            try await phone.withDocument(document) { doc in try doc.getMap("files").set("big", blob.toJSON()) }

            let curlHash = try Self.sha256(file: theirs)
            let curlUpload = try Self.curl(
                ["-X", "PUT", "-H", "Content-Type: application/octet-stream", "-T", theirs, "-o", "/dev/null"],
                url: "\(base)/\(document.rawValue)/blobs/\(curlHash)", token: token)
            if wants("upload_100MB") {
                var record = BenchRecord(name: "upload_\(megabytes)MB", engine: "accord")
                record["mb_per_s"] = .double((mb / upload * 10).rounded() / 10)
                record["seconds"] = .double((upload * 1000).rounded() / 1000)
                record["local_put_ms"] = BenchRecord.rounded(Self.seconds(uploadStart - putStart) * 1000)
                record["curl_mb_per_s"] = .double((mb / curlUpload * 10).rounded() / 10)
                record["ratio_to_curl"] = .double((curlUpload / upload * 100).rounded() / 100)
                record.emit()
            }

            if wants("download_100MB") {
                try await laptop.open(document, waitForLoad: .network)
                let downloadStart = ContinuousClock.now
                try await laptop.pinBlob(document, blob)
                let download = Self.seconds(ContinuousClock.now - downloadStart)
                let target = (work as NSString).appendingPathComponent("curl-copy.bin")
                let curlDownload = try Self.curl(
                    ["-o", target], url: "\(base)/\(document.rawValue)/blobs/\(blob.hash)", token: token)
                // The client's download ends synced to disk; curl's in the page cache.
                // The same sync after curl, for a like-for-like figure.
                let syncStart = ContinuousClock.now
                let descriptor = open(target, O_RDONLY)
                fsync(descriptor)
                close(descriptor)
                let curlSync = Self.seconds(ContinuousClock.now - syncStart)
                guard FileManager.default.contentsEqual(atPath: ours, andPath: target) else {
                    throw BenchFailure("curl downloaded other bytes than were uploaded")
                }
                var record = BenchRecord(name: "download_\(megabytes)MB", engine: "accord")
                record["mb_per_s"] = .double((mb / download * 10).rounded() / 10)
                record["seconds"] = .double((download * 1000).rounded() / 1000)
                record["curl_mb_per_s"] = .double((mb / curlDownload * 10).rounded() / 10)
                record["ratio_to_curl"] = .double((curlDownload / download * 100).rounded() / 100)
                record["curl_synced_mb_per_s"] = .double((mb / (curlDownload + curlSync) * 10).rounded() / 10)
                record["ratio_to_curl_synced"] = .double(((curlDownload + curlSync) / download * 100).rounded() / 100)
                record["note"] = "accord: into the client's store, verified and synced; curl: to a file (curl_synced: then fsync)"
                // The transport alone (AccordNet's HTTPClient into a sink that only
                // counts), to tell the network path from the store's work.
                let http = try HTTPClient()
                let counter = CountingSink()
                var request = HTTPClientRequest(.get, "\(base)/\(document.rawValue)/blobs/\(blob.hash)")
                request.headers = [("authorization", "Bearer \(token)")]
                let rawStart = ContinuousClock.now
                _ = try await http.send(request, timeout: .seconds(300), sink: counter)
                let raw = Self.seconds(ContinuousClock.now - rawStart)
                await http.stop()
                record["transport_only_mb_per_s"] = .double((mb / raw * 10).rounded() / 10)
                record.emit()
                try? FileManager.default.removeItem(atPath: target)
            }
            try? FileManager.default.removeItem(atPath: ours)
            try? FileManager.default.removeItem(atPath: theirs)
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
            record["note"] = "putBlobs (one batch) + one edit attaching all, uploads (queue, 3 at a time), reads on a second client 8 at a time"
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
