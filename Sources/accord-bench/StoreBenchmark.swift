import AccordCRDT
import AccordPostgres
import AccordStore
import Foundation

/// `accord-bench store`: the document store on SQLite files in a scratch directory,
/// with the default (durable) settings: WAL, `synchronous=FULL`.
struct StoreBenchmark {
    var tracePath: String
    var samples = 5
    /// Where the databases go; a directory on the disk being measured (not tmpfs).
    var directory: String
    var only: Set<String>?
    /// Updates appended by `append_batched`.
    var batchedUpdates = 100_000
    /// Updates appended (and flushed one by one) by `append_flush_each`.
    var flushEachUpdates = 500
    /// Size of the blob written and read by `blob_write` / `blob_read` / `file_copy`.
    var blobMegabytes = 100
    /// With a PostgreSQL URL, the document measurements run a second time on the
    /// PostgreSQL adapter (trace name `store-postgres:...`), in the same run.
    var postgresURL: String?

    static let names = [
        "append_batched", "append_flush_each", "load_compacted", "load_log_only", "compact",
        "blob_write", "blob_read", "file_copy",
    ]

    func wants(_ name: String) -> Bool { only?.contains(name) ?? true }

    func run() throws {
        let original = try EditingTrace.load(path: tracePath)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try run(original, scratch: Scratch(directory: directory), label: "store")
        if let postgresURL {
            try run(original, scratch: Scratch(postgres: postgresURL), label: "store-postgres")
        }
    }

    private func run(_ original: EditingTrace, scratch: Scratch, label: String) throws {
        var trace = original
        // Results group apart from the engine measurements of the same trace.
        trace.name = "\(label):\(trace.name)"
        let (doc, updates) = try TraceReplay.replayCollectingUpdates(trace)
        try TraceReplay.check("store replay", doc, against: trace)
        let full = doc.encodeStateAsUpdate()
        defer { scratch.removeAll() }
        let id = try DocumentID(validating: "bench")

        if wants("append_batched") {
            let batch = Array(updates.prefix(batchedUpdates))
            let timing = try timeAppends(samples: samples, scratch: scratch, id: id) { store in
                for update in batch { try store.append(update, to: id) }
                try store.flush()
            }
            emit("append_batched", trace.name, timing, ops: batch.count, note:
                "single-keystroke updates of the trace appended with default batching (threshold commits run off the appending "
                    + "thread), then one flush; local (kept for sending); "
                    + "automatic compaction runs in the background, and the next sample starts after it")
        }

        if wants("append_flush_each") {
            let batch = Array(updates.prefix(flushEachUpdates))
            let timing = try timeAppends(samples: samples, scratch: scratch, id: id) { store in
                for update in batch {
                    try store.append(update, to: id)
                    try store.flush()
                }
            }
            emit("append_flush_each", trace.name, timing, ops: batch.count, note:
                "one durable commit (fsync) per keystroke update")
        }

        if wants("load_compacted") {
            let path = scratch.fresh()
            let store = try scratch.open(path)
            try store.create(id)
            try store.restore(id, snapshot: full)
            let (timing, loaded) = try Timing.measure(samples: samples * 4) { () throws -> Doc in
                try scratch.open(path).load(id)
            }
            try TraceReplay.check("load_compacted", loaded, against: trace)
            var record = BenchRecord(name: "load_compacted", trace: trace.name, timing: timing)
            record["bytes"] = BenchRecord.int(full.count)
            record["note"] = "open the store and load the document from its snapshot"
            record.emit()
        }

        if wants("load_log_only") {
            let path = scratch.fresh()
            var options = DocumentStore.Options()
            options.compactionMaxEntries = 0
            let store = try scratch.open(path, options: options)
            try store.create(id, localOnly: true)
            for update in updates { try store.append(update, to: id) }
            try store.flush()
            let (timing, loaded) = try Timing.measure(samples: samples) { () throws -> Doc in
                try scratch.open(path, options: options).load(id)
            }
            try TraceReplay.check("load_log_only", loaded, against: trace)
            var record = BenchRecord(name: "load_log_only", trace: trace.name, timing: timing)
            record["updates"] = BenchRecord.int(updates.count)
            record["note"] = "open the store and replay one log entry per transaction, no snapshot"
            record.emit()
        }

        if scratch.postgres == nil, wants("blob_write") || wants("blob_read") || wants("file_copy") {
            // The three always run together: the ratio to file_copy is the point.
            var blobs = BlobBenchmark(directory: directory)
            blobs.samples = samples
            blobs.size = blobMegabytes * 1_000_000
            for record in try blobs.run() { record.emit() }
        }

        if wants("compact") {
            // The realistic case: a snapshot plus a full log of 1,024 keystrokes.
            let tail = 1_024
            let head = try TraceReplay.load(Array(updates.dropLast(tail))).encodeStateAsUpdate()
            var options = DocumentStore.Options()
            options.compactionMaxEntries = 0
            var paths: [String] = []
            for _ in 0...samples {
                let path = scratch.fresh()
                let store = try scratch.open(path, options: options)
                try store.create(id, localOnly: true)
                try store.restore(id, snapshot: head)
                for update in updates.suffix(tail) { try store.append(update, to: id) }
                try store.flush()
                paths.append(path)
            }
            var next = 0
            let timing = try Timing.measure(samples: samples) { () throws -> Int in
                let store = try scratch.open(paths[next], options: options)
                next += 1
                guard case .compacted(let bytes) = try store.compact(id) else { throw BenchFailure("compact did not compact") }
                return bytes
            }.0
            var record = BenchRecord(name: "compact", trace: trace.name, timing: timing)
            record["updates"] = BenchRecord.int(tail)
            record["note"] = "fold a 1,024-entry log into the snapshot (load, encode, one atomic commit)"
            record.emit()
        }
    }

    /// Times `body` on a fresh store with one empty document, once to warm up and then
    /// `samples` times. Creating the store is not timed; background compactions are
    /// waited for (untimed) so one sample's work never runs into the next.
    private func timeAppends(
        samples: Int, scratch: Scratch, id: DocumentID, _ body: (DocumentStore) throws -> Void
    ) throws -> Timing {
        let clock = ContinuousClock()
        var times: [Double] = []
        var warmup = 0.0
        for sample in 0...samples {
            let store = try scratch.open(scratch.fresh())
            try store.create(id)
            let start = clock.now
            try body(store)
            let elapsed = Timing.milliseconds(clock.now - start)
            store.waitForCompactions()
            if sample == 0 { warmup = elapsed } else { times.append(elapsed) }
        }
        return Timing(samples: times, warmup: warmup)
    }

    private func emit(_ name: String, _ trace: String, _ timing: Timing, ops: Int, note: String) {
        var record = BenchRecord(name: name, trace: trace, timing: timing)
        record["updates"] = BenchRecord.int(ops)
        record["ops_per_s"] = .int(Int64(Double(ops) / (timing.median / 1_000)))
        record["note"] = .string(note)
        record.emit()
    }
}

/// Stores for one run, removed at the end: SQLite files in a directory, or schemas in
/// a PostgreSQL database.
final class Scratch {
    let directory: String
    let postgres: String?
    private var made: [String] = []
    init(directory: String) {
        self.directory = directory
        postgres = nil
    }
    init(postgres url: String) {
        directory = ""
        postgres = url
    }

    /// A new store's name: a file path, or a schema name.
    func fresh() -> String {
        let random = UInt32.random(in: 0...UInt32.max)
        let name = postgres == nil ? "\(directory)/store-\(made.count)-\(random).db" : "bench_\(made.count)_\(random)"
        made.append(name)
        return name
    }

    /// Opens (creating if needed) the store named by `fresh()`.
    func open(_ name: String, options: DocumentStore.Options = .init()) throws -> DocumentStore {
        guard let postgres else { return try DocumentStore(path: name, options: options) }
        return DocumentStore(storage: SerialStorage(try PostgresStorageAdapter(url: postgres, schema: name)), options: options)
    }

    func removeAll() {
        if let postgres, let admin = try? PostgresConnection(url: postgres) {
            for schema in made { try? admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        }
        for path in made where postgres == nil {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        made = []
    }
}
