import AccordCRDT
import AccordRecords
import AccordStore
import AccordSync
import Foundation

/// `accord-bench records`: the records layer (issue 15, "How fast") on a 100,000-record
/// document of a to-do model (``TaskFixture``), through the real client path: an
/// `AccordClient` pinned offline over a SQLite store file with the default, durable
/// settings, its records index beside it (`<store>.records`), as an app runs it. Every
/// query also runs on a hand-written SQLite schema of the same data
/// (``HandWrittenTasks``) in the same process, and each line carries the ratio.
struct RecordsBenchmark: Sendable {
    var count = 100_000
    var batchSize = 1_000
    /// Full inserts timed (each on fresh files); the warm-up inserts a tenth.
    var insertSamples = 3
    var querySamples = 15
    var saveSamples = 200
    var reopenSamples = 20
    var changedReopenSamples = 3
    var directory = FileManager.default.temporaryDirectory.path
    /// Measurements to run (nil: all). The insert always runs: it builds the data.
    var only: Set<String>?

    /// The measurement names `--only` takes (sizes without their `_<N>`).
    static let names = [
        "insert_batch", "sizes", "query_indexed_eq", "query_range_sort_limit20", "query_containsText",
        "query_has_tag_limit20", "count_filtered", "aggregate_groupby", "aggregate_facet", "save_one_visible", "reopen",
    ]

    func wants(_ name: String) -> Bool { only?.contains(name) ?? true }

    static let traceName = "records:tasks"
    static let document: DocumentID = "tasks-bench"

    /// `insert_batch` becomes `insert_batch_100k` for 100,000 records, so a line never
    /// claims a size it did not measure.
    func named(_ base: String) -> String {
        count % 1_000 == 0 ? "\(base)_\(count / 1_000)k" : "\(base)_\(count)"
    }

    static let usage = """
          accord-bench records [--records N] [--batch N] [--insert-samples N] [--dir DIR] [--quick] [--only a,b]
              The records layer on a document of N to-do records (default 100,000: title and
              priority indexed, done, category, hours, tags, due) through an offline
              AccordClient over SQLite files in DIR, each query also on a hand-written SQLite
              schema (ratio printed): insert_batch_<N> (records/s, batches of --batch, default
              1,000, through ClientRecords.saveBatch, until the index holds them all) and
              insert_batch_saved_<N> (until the saves returned, durable), query_indexed_eq,
              query_range_sort_limit20, query_containsText, query_has_tag_limit20,
              count_filtered, aggregate_groupby, aggregate_facet, save_one_visible (µs), index_file_<N> and
              resident_client_<N> (bytes), reopen_unchanged_<N> and reopen_10_changed_<N>
              (ms: open the records index and catch the document up). --quick: 10,000
              records, fewer samples. --only (for profiling) takes insert_batch, sizes, a query
              name, save_one_visible, reopen; the insert always runs, it builds the data.
        """

    static func parse(_ args: [String]) throws(BenchFailure) -> RecordsBenchmark {
        var bench = RecordsBenchmark()
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--records": bench.count = try words.count(arg)
            case "--batch": bench.batchSize = try words.count(arg)
            case "--insert-samples": bench.insertSamples = try words.count(arg)
            case "--dir": bench.directory = try words.value(arg)
            case "--only": bench.only = try words.names(arg, from: Self.names, kind: "measurement")
            case "--quick":
                bench.count = 10_000
                bench.insertSamples = 1
                bench.querySamples = 5
                bench.saveSamples = 50
                bench.reopenSamples = 5
                bench.changedReopenSamples = 1
            default: throw BenchFailure.usage("unknown option '\(arg)'")
            }
        }
        return bench
    }

    func run() -> Int32 {
        AsyncCases.run {
            do {
                try await runAll()
                return 0
            } catch {
                TraceBenchmark.log("error: records: \(error)")
                return 1
            }
        }
    }

    private func runAll() async throws {
        let work = (directory as NSString).appendingPathComponent("accord-bench-records-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let fixture = TaskFixture(count: count)
        TraceBenchmark.log("records: \(count) tasks in batches of \(batchSize), files in \(work)")

        let (accord, hand) = try await measureInserts(fixture, work: work)
        if wants("sizes") { try measureSizes(accord, hand) }
        try measureQueries(fixture, accord: accord, hand: hand)
        if wants("save_one_visible") { try await measureSaveOne(fixture, accord: accord, hand: hand) }
        if wants("reopen") { try await measureReopen(fixture, accord: accord) }
    }
}
