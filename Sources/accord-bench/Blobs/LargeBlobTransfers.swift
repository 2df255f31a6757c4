import AccordCRDT
import AccordNet
import AccordStore
import AccordSync
import Foundation

/// The `upload_100MB` / `download_100MB` cases of ``BlobsBenchmark``, sampled: one
/// transfer of 100 MB takes about 0.2 s, so a single hiccup of a busy machine would
/// decide a one-sample verdict. Each sample moves new content (stored content is
/// answered at once) with the Accord client and with curl, back to back, alternating
/// which goes first, and the records report the median of the per-sample ratios (each
/// pair ran under the same load) with the spread beside it.
struct LargeBlobTransfers {
    var phone: AccordClient
    var laptop: AccordClient
    var document: DocumentID
    /// `http://127.0.0.1:PORT/v1/documents`.
    var base: String
    var token: String
    var work: String
    var megabytes: Int
    var samples: Int

    /// One sample's seconds for each side.
    struct Pair {
        var accord: Double
        var curl: Double
        var ratio: Double { curl / accord }
    }

    struct Results {
        var uploads: [Pair] = []
        var localPutMilliseconds: [Double] = []
        var downloads: [Pair] = []
        /// curl's download plus an fsync of its file, seconds.
        var curlSynced: [Double] = []
        /// AccordNet's HTTPClient into a sink that only counts, seconds.
        var transportOnly: [Double] = []
    }

    func run(download: Bool) async throws -> Results {
        var results = Results()
        let size = megabytes << 20
        try await laptop.open(document, waitForLoad: .network)
        for sample in 0..<samples {
            let accordFirst = sample % 2 == 0
            let ours = (work as NSString).appendingPathComponent("ours-\(sample).bin")
            let theirs = (work as NSString).appendingPathComponent("curl-\(sample).bin")
            defer {
                try? FileManager.default.removeItem(atPath: ours)
                try? FileManager.default.removeItem(atPath: theirs)
            }
            try BlobsBenchmark.writeRandomFile(ours, bytes: size, seed: UInt64(2 * sample + 1))
            try BlobsBenchmark.writeRandomFile(theirs, bytes: size, seed: UInt64(2 * sample + 2))

            var accordUpload: (seconds: Double, localPut: Double, blob: BlobRef)?
            var curlUpload = 0.0
            for side in accordFirst ? [true, false] : [false, true] {
                if side {
                    accordUpload = try await uploadWithAccord(ours)
                } else {
                    curlUpload = try await uploadWithCurl(theirs)
                }
            }
            guard let accordUpload else { throw BenchFailure("no upload sample") }
            results.uploads.append(Pair(accord: accordUpload.seconds, curl: curlUpload))
            results.localPutMilliseconds.append(accordUpload.localPut * 1000)
            let blob = accordUpload.blob
            try await phone.withDocument(document) { doc in try doc.getMap("files").set("big\(sample)", blob.toJSON()) }

            guard download else { continue }
            let target = (work as NSString).appendingPathComponent("curl-copy.bin")
            defer { try? FileManager.default.removeItem(atPath: target) }
            var accordDownload = 0.0
            var curlDownload = (seconds: 0.0, sync: 0.0)
            for side in accordFirst ? [true, false] : [false, true] {
                if side {
                    let start = ContinuousClock.now
                    try await laptop.pinBlob(document, blob)
                    accordDownload = BlobsBenchmark.seconds(ContinuousClock.now - start)
                } else {
                    curlDownload = try downloadWithCurl(blob, to: target)
                }
            }
            guard FileManager.default.contentsEqual(atPath: ours, andPath: target) else {
                throw BenchFailure("curl downloaded other bytes than were uploaded")
            }
            results.downloads.append(Pair(accord: accordDownload, curl: curlDownload.seconds))
            results.curlSynced.append(curlDownload.seconds + curlDownload.sync)
            results.transportOnly.append(try await downloadTransportOnly(blob))
            // The downloaded copy is not needed again: unpinned, the cache may drop it.
            try await laptop.unpinBlob(blob)
        }
        return results
    }

    /// From the moment `put(fileURL:)` returned (the blob stored and queued locally;
    /// that time is `localPut`) to the server's acknowledgement.
    private func uploadWithAccord(_ path: String) async throws -> (seconds: Double, localPut: Double, blob: BlobRef) {
        let uploaded = phone.expectEvent(BlobUploadedEvent.self)
        let putStart = ContinuousClock.now
        let blob = try await phone.putBlob(document, fileURL: URL(fileURLWithPath: path), contentType: "application/octet-stream")
        let uploadStart = ContinuousClock.now
        _ = try await uploaded.value(timeout: .seconds(600))
        let end = ContinuousClock.now
        return (BlobsBenchmark.seconds(end - uploadStart), BlobsBenchmark.seconds(uploadStart - putStart), blob)
    }

    private func uploadWithCurl(_ path: String) async throws -> Double {
        let hash = try BlobsBenchmark.sha256(file: path)
        return try BlobsBenchmark.curl(
            ["-X", "PUT", "-H", "Content-Type: application/octet-stream", "-T", path, "-o", "/dev/null"],
            url: "\(base)/\(document.rawValue)/blobs/\(hash)", token: token)
    }

    /// curl `GET`s the blob to a file; then the same sync the client's download ends
    /// with, timed apart, for a like-for-like figure beside the page-cache one.
    private func downloadWithCurl(_ blob: BlobRef, to target: String) throws -> (seconds: Double, sync: Double) {
        try? FileManager.default.removeItem(atPath: target)
        let seconds = try BlobsBenchmark.curl(
            ["-o", target], url: "\(base)/\(document.rawValue)/blobs/\(blob.hash)", token: token)
        let syncStart = ContinuousClock.now
        let descriptor = open(target, O_RDONLY)
        fsync(descriptor)
        close(descriptor)
        return (seconds, BlobsBenchmark.seconds(ContinuousClock.now - syncStart))
    }

    /// The transport alone, to tell the network path from the store's work.
    private func downloadTransportOnly(_ blob: BlobRef) async throws -> Double {
        let http = try HTTPClient()
        let counter = CountingSink()
        var request = HTTPClientRequest(.get, "\(base)/\(document.rawValue)/blobs/\(blob.hash)")
        request.headers = [("authorization", "Bearer \(token)")]
        let start = ContinuousClock.now
        _ = try await http.send(request, timeout: .seconds(300), sink: counter)
        let seconds = BlobsBenchmark.seconds(ContinuousClock.now - start)
        await http.stop()
        guard counter.bytes == megabytes << 20 else { throw BenchFailure("the transport-only download got \(counter.bytes) bytes") }
        return seconds
    }
}

/// Median and range of a few samples.
struct SampleSpread {
    var values: [Double]

    /// The middle value (the mean of the two middle ones for an even count).
    var median: Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    var min: Double { values.min() ?? 0 }
    var max: Double { values.max() ?? 0 }

    /// Rounded to `places` decimals, for a record.
    static func round(_ value: Double, _ places: Int) -> AnyValue {
        let scale = pow(10, Double(places))
        return .double((value * scale).rounded() / scale)
    }

    /// The values rounded, in sample order.
    func list(_ places: Int) -> AnyValue { .array(values.map { Self.round($0, places) }) }
}
