import AccordCRDT
import AccordDatabase
import AccordRecords
import AccordStore
import Dispatch
import Foundation

/// `accord-bench database`: the JSON document API (issue 20, "How fast") on real files,
/// each measurement beside a plain SQLite JSON table doing the same work in the same run
/// (``PlainJSONTable``).
struct DatabaseBenchmark {
    var count = 100_000
    var batchSize = 1_000
    var samples = 15
    var directory = FileManager.default.temporaryDirectory.path
    /// Only the save measurements (for profiling them).
    var savesOnly = false

    static let usage = """
          accord-bench database [--documents N] [--dir DIR] [--quick] [--saves-only]
              The JSON document database (Database, collections, MutableDocument) on SQLite
              files in DIR, each line beside a plain SQLite JSON table (json_extract and an
              expression index): save_10k_batched and save_1k_unbatched (documents/s),
              get_by_id (µs), query_indexed and query_full_scan over N documents (default
              100,000; ms), listener_latency (save to listener, µs). --quick: 10,000 documents.
              --saves-only: the two save lines only (for profiling).
        """

    static func parse(_ args: [String]) throws(BenchFailure) -> DatabaseBenchmark {
        var bench = DatabaseBenchmark()
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--documents": bench.count = try words.count(arg)
            case "--dir": bench.directory = try words.value(arg)
            case "--quick":
                bench.count = 10_000
                bench.samples = 5
            case "--saves-only": bench.savesOnly = true
            default: throw BenchFailure.usage("unknown option '\(arg)'")
            }
        }
        return bench
    }

    /// The documents: a name, an age, a city (100 values), a nested address, tags.
    static func documents(_ count: Int, prefix: String = "p") -> [(id: String, json: String)] {
        (0..<count).map { n in
            let id = "\(prefix)\(n)"
            let json = #"{"name":"person \#(n)","age":\#(n % 100),"city":"c\#(n % 100)","#
                + #""address":{"street":"\#(n) main st","zip":"\#(10_000 + n % 9_000)"},"tags":["t\#(n % 7)","t\#(n % 11)"]}"#
            return (id, json)
        }
    }

    func run() -> Int32 {
        do {
            try runAll()
            return 0
        } catch {
            TraceBenchmark.log("error: database: \(error)")
            return 1
        }
    }

    private func runAll() throws {
        let work = (directory as NSString).appendingPathComponent("accord-bench-database-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        TraceBenchmark.log("database: \(count) documents, files in \(work)")

        try measureSaves(work: work)
        if savesOnly { return }
        let database = try Database(name: "bench", directory: work)
        defer { try? database.close() }
        let people = try database.createCollection(name: "people")
        let plain = try PlainJSONTable(path: work + "/plain.sqlite")
        let all = Self.documents(count)
        for start in stride(from: 0, to: all.count, by: batchSize) {
            let slice = all[start..<min(start + batchSize, all.count)]
            try database.inBatch {
                for document in slice { try people.save(document: try MutableDocument(id: document.id, json: document.json)) }
            }
            try plain.save(slice)
        }
        try measureGet(people, plain)
        try measureQueries(people, plain)
        try measureListener(people)
    }

    // MARK: Saves

    private func measureSaves(work: String) throws {
        let batched = Self.documents(10_000, prefix: "b")
        var round = 0
        let (accord, _) = try Timing.measure(samples: 3) {
            round += 1
            let database = try Database(name: "saves\(round)", directory: work)
            defer { try? database.delete() }
            let collection = try database.defaultCollection()
            for start in stride(from: 0, to: batched.count, by: batchSize) {
                try database.inBatch {
                    for document in batched[start..<min(start + batchSize, batched.count)] {
                        try collection.save(document: try MutableDocument(id: document.id, json: document.json))
                    }
                }
            }
        }
        let (plain, _) = try Timing.measure(samples: 3) {
            round += 1
            let table = try PlainJSONTable(path: work + "/plain-saves\(round).sqlite")
            for start in stride(from: 0, to: batched.count, by: batchSize) {
                try table.save(batched[start..<min(start + batchSize, batched.count)])
            }
        }
        emit("save_10k_batched", unit: "documents/s", accord: 10_000 / (accord.median / 1000),
            sqlite: 10_000 / (plain.median / 1000), samples: accord.samples.count,
            note: "10,000 new documents in inBatch blocks of \(batchSize) (each a CRDT transaction per collection, a durable store flush, a table transaction); plain: INSERT OR REPLACE of the JSON text in one transaction per block",
            target: (">= 50000 documents/s", 10_000 / (accord.median / 1000) >= 50_000))

        let single = Self.documents(1_000, prefix: "s")
        let (one, _) = try Timing.measure(samples: 1) {
            round += 1
            let database = try Database(name: "single\(round)", directory: work)
            defer { try? database.delete() }
            let collection = try database.defaultCollection()
            for document in single { try collection.save(document: try MutableDocument(id: document.id, json: document.json)) }
        }
        let (plainOne, _) = try Timing.measure(samples: 1) {
            round += 1
            let table = try PlainJSONTable(path: work + "/plain-single\(round).sqlite")
            for index in single.indices { try table.save(single[index...index]) }
        }
        emit("save_1k_unbatched", unit: "documents/s", accord: 1_000 / (one.median / 1000),
            sqlite: 1_000 / (plainOne.median / 1000), samples: one.samples.count,
            note: "1,000 saves, each its own commit: the database syncs its store to disk per save (synchronous=FULL), the plain table does not (NORMAL)",
            target: nil)
    }

    // MARK: Reads

    private func measureGet(_ people: Collection, _ plain: PlainJSONTable) throws {
        let ids = (0..<1_000).map { "p\(($0 * 7_919) % count)" }
        let (accord, _) = try Timing.measure(samples: samples) {
            for id in ids { _ = try people.document(id: id) }
        }
        let (sqlite, _) = try Timing.measure(samples: samples) {
            for id in ids { _ = try plain.get(id) }
        }
        let perGet = accord.median * 1000 / Double(ids.count)
        emit("get_by_id", unit: "µs", accord: perGet, sqlite: sqlite.median * 1000 / Double(ids.count),
            samples: accord.samples.count, note: "median of \(samples) runs of 1,000 gets by id, document parsed",
            target: ("< 20 µs", perGet < 20))
    }

    private func measureQueries(_ people: Collection, _ plain: PlainJSONTable) throws {
        try people.createIndex(name: "city", keyPaths: ["city"])
        try plain.createIndex(path: "city")
        let (indexed, found) = try Timing.measure(samples: samples) { try people.query(["city": "c17"]).count }
        let (plainIndexed, plainFound) = try Timing.measure(samples: samples) {
            try plain.query("json_extract(body, '$.city') = ?", [.text("c17")]).count
        }
        guard found == plainFound else { throw BenchFailure("query_indexed found \(found), plain \(plainFound)") }
        let ratio = indexed.median / plainIndexed.median
        emit("query_indexed_\(count / 1_000)k", unit: "ms", accord: indexed.median, sqlite: plainIndexed.median,
            samples: indexed.samples.count, note: "{city: c17} with an index on city: \(found) documents, parsed",
            target: ("within 2x plain SQLite", ratio <= 2))

        let (scan, scanned) = try Timing.measure(samples: samples) {
            try people.query(["address.zip": ["$startsWith": "1777"]]).count
        }
        let (plainScan, plainScanned) = try Timing.measure(samples: samples) {
            try plain.query("json_extract(body, '$.address.zip') LIKE '1777%'", []).count
        }
        guard scanned == plainScanned else { throw BenchFailure("query_full_scan found \(scanned), plain \(plainScanned)") }
        emit("query_full_scan_\(count / 1_000)k", unit: "ms", accord: scan.median, sqlite: plainScan.median,
            samples: scan.samples.count, note: "{address.zip: {$startsWith: 1777}}, no index: \(scanned) documents",
            target: nil)
    }

    private func measureListener(_ people: Collection) throws {
        let heard = DispatchSemaphore(value: 0)
        let token = people.addDocumentChangeListener(id: "listened") { _ in heard.signal() }
        defer { token.remove() }
        let document = MutableDocument(id: "listened")
        var n = 0
        let (latency, _) = try Timing.measure(samples: samples * 4) {
            n += 1
            try people.save(document: document.setInt(n, forKey: "n"))
            heard.wait()
        }
        emit("listener_latency", unit: "µs", accord: latency.median * 1000, sqlite: nil, samples: latency.samples.count,
            note: "save (durable) until the listener runs on the database's listener queue", target: nil)
    }

    private func emit(
        _ name: String, unit: String, accord: Double, sqlite: Double?, samples: Int, note: String,
        target: (String, Bool)?
    ) {
        var record = BenchRecord(name: name, engine: "accord")
        record["trace"] = "database:people"
        record["unit"] = .string(unit)
        record["value"] = .double((accord * 1_000).rounded() / 1_000)
        record["samples"] = BenchRecord.int(samples)
        if let sqlite {
            record["sqlite_value"] = .double((sqlite * 1_000).rounded() / 1_000)
            record["ratio_vs_sqlite"] = .double((accord / sqlite * 1_000).rounded() / 1_000)
        }
        if let (text, met) = target {
            record["target"] = .string(text)
            record["target_met"] = .bool(met)
        }
        record["note"] = .string(note)
        record.emit()
    }
}
