import AccordCRDT
import AccordStore
import Foundation
import AccordTesting

/// Blob store throughput against a plain file copy in the same run (the target:
/// blob throughput at least 70% of the copy's). Three measurements on one input file:
///
/// - `blob_write`: `BlobStore.put(contentsOfFile:)` into a fresh SQLite-backed store,
///   content in files beside the database (the default): the content file is written,
///   fsynced, renamed to its hash and the directory fsynced, then the index row is
///   committed (WAL, `synchronous=FULL`); SHA-256 included;
/// - `blob_read`: `BlobStore.export(_:toFile:)`, from the content file, verified (size
///   and SHA-256), synced and renamed into place;
/// - `file_copy`: read the file and write a new one in 1 MiB pieces, then fsync it:
///   the same durability as both sides above.
///
/// Each runs once to warm up, then `samples` times; setup (a fresh database, removing
/// the previous output) is outside the timed part.
struct BlobBenchmark {
    /// Where the input file, databases and outputs go (removed again at the end).
    var directory: String
    /// Bytes of the input file.
    var size = 100 * 1_000_000
    var samples = 5
    var tuning = BlobStore.Tuning()
    /// SQLite page size for the store's database; nil keeps SQLite's default (4096).
    var pageSize: Int?

    static let names = ["file_copy", "blob_write", "blob_read"]

    /// Runs the three measurements and returns their records (not yet emitted).
    func run() throws -> [BenchRecord] {
        let work = "\(directory)/accord-blob-bench-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let input = "\(work)/input"
        try Self.writeInput(input, size: size)
        let trace = "store:blob_\(size / 1_000_000)MB"

        let copyTiming = try measure(setup: { try remove("\(work)/copy") }) {
            try Self.copyFile(input, to: "\(work)/copy")
        }

        var store: BlobStore?
        var hash: BlobHash?
        let writeTiming = try measure(setup: {
            store = nil
            for suffix in ["", "-wal", "-shm", ".blobs"] { try remove("\(work)/store.sqlite\(suffix)") }
            var settings = SQLiteConnection.Settings()
            settings.pageSize = pageSize
            let adapter = try SQLiteStorageAdapter(path: "\(work)/store.sqlite", settings: settings)
            store = try BlobStore(storage: SerialStorage(adapter), tuning: tuning)
        }) {
            guard let store else { throw BenchFailure("no store") }
            hash = try store.put(contentsOfFile: input).hash
        }
        guard let store, let hash else { throw BenchFailure("blob_write stored nothing") }

        let readTiming = try measure(setup: { try remove("\(work)/export") }) {
            try store.export(hash, toFile: "\(work)/export")
        }
        guard try FileComparison.equal(input, "\(work)/export") else {
            throw BenchFailure("blob_read wrote different bytes than the input")
        }

        let copyRate = rate(copyTiming)
        var records: [BenchRecord] = []
        for (name, timing) in [("file_copy", copyTiming), ("blob_write", writeTiming), ("blob_read", readTiming)] {
            var record = BenchRecord(name: name, trace: trace, timing: timing)
            record["bytes"] = BenchRecord.int(size)
            record["mb_per_s"] = .double((rate(timing) * 10).rounded() / 10)
            if name != "file_copy" {
                record["vs_file_copy"] = .double((rate(timing) / copyRate * 1000).rounded() / 1000)
                record["chunk_size"] = BenchRecord.int(tuning.chunkSize)
                record["chunks_per_batch"] = BenchRecord.int(tuning.chunksPerBatch)
                record["page_size"] = BenchRecord.int(pageSize ?? 4096)
                record["layout"] = .string(store.directory == nil ? "chunks" : "files")
            }
            record["note"] = .string(Self.notes[name] ?? "")
            record["build"] = .string(Self.build)
            records.append(record)
        }
        return records
    }

    static let notes = [
        "file_copy": "read + write in 1 MiB pieces + fsync of the new file (the blob store's durability)",
        "blob_write": "BlobStore.put(contentsOfFile:) into a fresh SQLite store: content file written + fsynced + renamed (dir fsynced), then the index row committed (WAL, synchronous=FULL); SHA-256 included",
        "blob_read": "BlobStore.export(_:toFile:): from the content file, size + SHA-256 verified, temp file fsynced and renamed",
    ]

    #if DEBUG
    static let build = "debug"
    #else
    static let build = "release"
    #endif

    /// Megabytes (10^6 bytes) per second at the median.
    private func rate(_ timing: Timing) -> Double {
        timing.median > 0 ? Double(size) / 1e6 / (timing.median / 1000) : 0
    }

    /// Like ``Timing/measure(samples:_:)`` but with untimed setup before every run.
    private func measure(setup: () throws -> Void, _ body: () throws -> Void) throws -> Timing {
        let clock = ContinuousClock()
        var times: [Double] = []
        var warmup = 0.0
        for run in 0...samples {
            try setup()
            let start = clock.now
            try body()
            let elapsed = Timing.milliseconds(clock.now - start)
            if run == 0 { warmup = elapsed } else { times.append(elapsed) }
        }
        return Timing(samples: times, warmup: warmup)
    }

    private func remove(_ path: String) throws {
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }

    /// Writes `size` bytes of distinct 1 MiB pieces (one random block, each piece
    /// stamped with its number), one piece at a time.
    static func writeInput(_ path: String, size: Int) throws {
        // Eight bytes per draw: the system generator makes a syscall per call.
        var generator = SystemRandomNumberGenerator()
        let block = (0..<(1 << 17)).flatMap { _ in
            withUnsafeBytes(of: generator.next() as UInt64) { Array($0) }
        }
        try FileComparison.writeStamped(path, size: size, block: block)
    }

    /// The baseline: read + write in 1 MiB pieces, then fsync the new file.
    static func copyFile(_ source: String, to destination: String) throws {
        let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: source))
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: destination, contents: nil) else {
            throw BenchFailure("cannot create \(destination)")
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: destination))
        defer { try? output.close() }
        while let data = try input.read(upToCount: 1 << 20), !data.isEmpty {
            try output.write(contentsOf: data)
        }
        try output.synchronize()
    }

}
