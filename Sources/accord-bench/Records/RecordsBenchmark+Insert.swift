import AccordCRDT
import AccordRecords
import AccordStore
import AccordSync
import Foundation

/// The records side under test: an offline client over a store file, its records
/// (index at `<path>.records`), and one open document holding the tasks.
struct AccordSide: Sendable {
    let client: AccordClient
    let records: ClientRecords
    let store: DocumentStore
    let path: String
    var indexPath: String { path + ".records" }

    /// A fresh client over `path`, pinned offline (no server: the benchmark measures
    /// the local path), with the tasks model registered and the document created.
    static func make(path: String) async throws -> AccordSide {
        let store = try DocumentStore(path: path)
        let client = AccordClient(serverURL: "ws://127.0.0.1:9", store: store) { "no-token" }
        await client.goOffline()
        await client.start()
        let records = try await client.registerModels([TaskFixture.model])
        try await client.create(RecordsBenchmark.document, localOnly: true)
        return AccordSide(client: client, records: records, store: store, path: path)
    }

    /// Stops the client and removes its files.
    func discard() async {
        await client.stop()
        for file in [path, indexPath] {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) }
        }
    }
}

extension RecordsBenchmark {
    /// `insert_batch_<N>`: every task saved through `ClientRecords.saveBatch`, one
    /// batch per call (one Doc transaction, one update in the store log, one
    /// projection of the batch's ids queued for the index), then one flush of the store
    /// and one count query, so the time runs until the index holds every record. The hand-written side inserts the
    /// same batches, one SQLite transaction each. Each timed run starts from empty
    /// files; the last run's data is kept for the measurements that follow.
    func measureInserts(_ fixture: TaskFixture, work: String) async throws -> (AccordSide, HandWrittenTasks) {
        let model = TaskFixture.model.name
        // Built before the clock starts: making the values is the app's work, not ours.
        let tasks = (0..<count).map(fixture.task)
        let batches = stride(from: 0, to: count, by: batchSize).map { Array(tasks[$0..<min($0 + batchSize, count)]) }
        let writes = batches.map { $0.map { RecordWrite(id: $0.id, values: $0.values) } }

        let clock = ContinuousClock()
        var times: [Double] = []
        var savedTimes: [Double] = []
        var warmup = 0.0
        var kept: AccordSide?
        var residentDelta: Int?
        for run in 0...insertSamples {
            // The warm-up (run 0) inserts a tenth, to fault in code and allocator pools.
            let runWrites = run == 0 ? Array(writes.prefix(max(1, writes.count / 10))) : writes
            if let previous = kept { await previous.discard() }
            let before = Self.residentNow()
            let side = try await AccordSide.make(path: "\(work)/accord-\(run).sqlite")
            let start = clock.now
            for batch in runWrites {
                try await side.records.saveBatch(model, batch, in: Self.document, client: side.client)
            }
            try side.store.flush()
            let saved = Timing.milliseconds(clock.now - start)
            if run > 0 { savedTimes.append(saved) }
            // Until a query sees every record: the index writes in the background, and
            // a read first writes what is still queued.
            _ = try side.records.count(model)
            let elapsed = Timing.milliseconds(clock.now - start)
            if run == 0 { warmup = elapsed } else { times.append(elapsed) }
            kept = side
            if let before, let after = Self.residentNow() { residentDelta = after - before }
        }
        guard let side = kept else { throw BenchFailure("no insert run") }
        let stored = try side.records.count(model)
        guard stored == count else { throw BenchFailure("the index holds \(stored) tasks after inserting \(count)") }

        var handTimes: [Double] = []
        var hand: HandWrittenTasks?
        for run in 0...insertSamples {
            let db = try HandWrittenTasks(path: "\(work)/hand-\(run).sqlite")
            let start = clock.now
            for batch in run == 0 ? Array(batches.prefix(max(1, batches.count / 10))) : batches { try db.save(batch) }
            if run > 0 { handTimes.append(Timing.milliseconds(clock.now - start)) }
            hand = db
        }
        guard let hand else { throw BenchFailure("no hand-written insert run") }

        let timing = Timing(samples: times, warmup: warmup)
        let rate = Double(count) / (timing.median / 1_000)
        var line = RecordsLine(named("insert_batch"), unit: "records/s", value: rate, note:
            "\(count) tasks through ClientRecords.saveBatch in batches of \(batchSize) (offline AccordClient, store file "
                + "with durable defaults, index file beside it), then one store flush and one count query (the index "
                + "holds every record); median of \(times.count) runs "
                + "from empty files; hand-written: the same batches as SQLite transactions; ratio < 1 means slower")
        line["median_ms"] = RecordsLine.figure(timing.median)
        line["min_ms"] = RecordsLine.figure(timing.min)
        line["samples"] = BenchRecord.int(times.count)
        line["batch"] = BenchRecord.int(batchSize)
        line.compare(withSQLite: Double(count) / (Timing(samples: handTimes, warmup: 0).median / 1_000))
        line.target("≥ 100,000 records/s", met: rate >= 100_000)
        line.emit()

        let savedRate = Double(count) / (Timing(samples: savedTimes, warmup: 0).median / 1_000)
        var savedLine = RecordsLine(named("insert_batch_saved"), unit: "records/s", value: savedRate, note:
            "the same inserts timed until the last saveBatch returned and the store flushed (every record durable in "
                + "the document; the index may still be writing its rows in the background): what a saving app waits for")
        savedLine["median_ms"] = RecordsLine.figure(Timing(samples: savedTimes, warmup: 0).median)
        savedLine.emit()

        if let residentDelta {
            RecordsLine(named("resident_client"), unit: "bytes", value: Double(residentDelta), note:
                "growth of this process's RSS (/proc/self/statm, after malloc_trim) from before the client was made "
                    + "to after the last insert run: the Doc of \(count) records, the store and the index connection "
                    + "(SQLite page cache) together; the Doc dominates").emit()
        }
        return (side, hand)
    }

    /// `index_file_<N>`: the records index on disk, beside the hand-written database.
    func measureSizes(_ accord: AccordSide, _ hand: HandWrittenTasks) throws {
        var settings = SQLiteConnection.Settings()
        settings.readOnly = true
        let index = try SQLiteConnection(path: accord.indexPath, settings: settings)
        var line = RecordsLine(named("index_file"), unit: "bytes", value: Double(try HandWrittenTasks.sizeBytes(index)), note:
            "the records index file: PRAGMA page_count × page_size (WAL pages included); what stays resident of it is "
                + "SQLite's page cache (up to 32 MiB for the records index, SQLite's default 2,000 KiB for the hand-written database), not the file; hand-written: the same figure")
        line.compare(withSQLite: Double(try hand.sizeBytes()))
        line.emit()
    }

    static func residentNow() -> Int? {
        #if os(Linux)
        ProcessMemory.trimHeap()
        return ProcessMemory.residentBytes()
        #else
        return nil
        #endif
    }
}
