import Foundation

/// `accord-bench` command line: a small hand-written parser (no outside packages).
enum BenchCommand {
    static let usage = """
        accord-bench: benchmarks for Accord on real editing traces.

        Usage:
          accord-bench trace <trace.json.gz> [options]
              Replays a sequential trace from shared/traces (one transaction per trace
              transaction, each patch a delete then an insert in the root text "text"),
              checks the final text against the trace's endContent, and prints one JSON
              line per measurement: replay, replay_with_updates, encode_v1, load_v1,
              apply_incremental, resident_doc (Linux). Same format as
              scripts/bench_reference.py, so scripts/bench.sh can compare engines.

          accord-bench store <trace.json.gz> [--samples N] [--dir DIR] [--blob-mb N] [--postgres URL] [--only a,b]
              The document and blob stores on SQLite files in DIR (default: the system
              temporary directory; use a directory on the disk you want to measure):
              append_batched, append_flush_each (with ops_per_s), load_compacted,
              load_log_only, compact, blob_write, blob_read, file_copy (with mb_per_s;
              a 100 MB blob unless --blob-mb). With --postgres, the document measurements
              run again on the PostgreSQL adapter (trace store-postgres:...), same run.

          accord-bench cluster [--postgres URL] [--quick] [--seconds N] [--clients N] [--documents N]
              many_documents on 1 node with SQLite, 1 node with PostgreSQL, and 2 and 3
              `accord serve --cluster` nodes on PostgreSQL (URL or $ACCORD_POSTGRES_URL;
              scripts/postgres.sh starts one). Each document's clients take turns over the
              nodes: msgs_per_s, p50_ms, p99_ms (all deliveries), cross_p50_ms and
              cross_p99_ms (sender and receiver on different nodes), rss_bytes_per_node,
              pg_transactions_per_edit (pg_stat_database commits+rollbacks over edits sent).
          accord-bench server [--target accord|pycrdt|both] [--quick] [--only a,b] [options]
              Load on a sync server started as a subprocess, driven over the y-websocket
              protocol by clients on one WebSocketClientPool; run from the repository root.
              Cases: idle_connections (connections held, server RSS), fanout (one typist,
              many readers: msgs_per_s, p50_ms, p99_ms), many_documents (clients over many
              documents, one update a second each), cold_open (sync time of a restarted
              server on the automerge-paper document). Accord is `accord serve --dev`
              (records named as the cases), pycrdt scripts/pycrdt_ws_server.py (names with
              _pycrdt); with both, `<case>_ratio` lines give accord / pycrdt per figure.
              rss_bytes is the server's VmRSS; client_cpu_s is the CPU accord-bench itself
              used during the case (it shares the machine with the server).
              --quick scales down (500 idle, 20 fanout clients, 100 clients over 10
              documents, 3 s loads, one cold-open sample) for smoke runs.

          accord-bench codegen [--models N] [--samples N]
              accord codegen's work on a synthetic schema of N models (default 200; every
              field type, unique keys, all relationship kinds): parse the JSON, validate,
              generate the Swift and write a fresh folder. One JSON line,
              codegen_<N>_models, with files and schema_bytes. Target: under 1 s for 200.

          accord-bench blobs [--quick] [--mb N] [--samples N] [--only a,b] [--accord PATH]
              Blobs through accord serve --dev with two AccordClients, beside curl moving
              a file of the same size to and from the same server: upload_100MB and
              download_100MB (MB/s, ratio_to_curl; medians of N samples, default 5, each
              new content moved by both, alternating which goes first; with the
              spread), small_blobs_1k (1,000 blobs of 10 KB
              put, uploaded and read on another client: blobs/s), cache_hit_read (µs).
              Targets: at least 0.7 of curl's rate; 1,000 small blobs in under 5 s.

          accord-bench client [--quick] [--only a,b] [--accord PATH] [--trace PATH]
              The sync client (AccordClient) against accord serve --dev started as a
              subprocess, a fresh server and fresh SQLite client stores per case; run from
              the repository root. One JSON line per case with p50_ms, p99_ms, median_ms:
              edit_to_remote_2 and edit_to_remote_50 (a local edit until it is applied in
              another client's document, 2 and 50 clients on one document),
              open_local_cached (open a cached automerge-paper document and read its
              length; target 10 ms), reconnect_catchup_10k (goOnline of a client with
              10,000 offline edits until it is synced and acknowledged). --quick takes
              fewer samples.

        \(RecordsBenchmark.usage)

        \(DatabaseBenchmark.usage)

        \(IngestBenchmark.usage)

        \(DirectoryBenchmark.usage)

        \(CollabBenchmark.usage)

          accord-bench toml [--samples N] [--dir DIR] [--python PATH]
              Parses two generated 1 MB TOML documents with AccordTOML (models.toml: many
              [models.x.fields.y] tables of small keys; mixed.toml: every value type), one
              JSON line each with mb_per_s, then times Python's tomllib on the same files
              (scripts/toml_bench.py, run from the repository root) and prints
              toml_parse_speedup lines (times_faster_than_tomllib). The files are written
              to DIR (default: the system temporary directory).

        Options of server:
          --accord PATH          the accord binary (default: next to accord-bench)
          --python PATH          python with pycrdt-websocket (default .venv/bin/python)
          --pycrdt-server PATH   default scripts/pycrdt_ws_server.py
          --trace PATH           default ../shared/traces/automerge-paper.json.gz
          --idle-connections N   connections of idle_connections (default 10000)
          --seconds N            length of the fanout and many_documents loads (default 10)
          --tls                  Accord serves wss:// with a throwaway CA's certificate
                                 (openssl CLI) the clients trust; records end in _tls;
                                 pycrdt is not run

        Options of trace:
          --samples N            timed runs of the replay-type measurements (default 5)
          --fast-samples N       timed runs of encode_v1 and load_v1 (default 20)
          --resident-samples N   child processes for resident_doc (default 3)
          --only a,b             run only these measurements
          --write-update FILE    also write the encoded full state (encode_v1) to FILE

        Every measurement runs once to warm up before its timed runs. Build with
        'swift build -c release --product accord-bench' for meaningful numbers.
        """

    static func run(_ argv: [String]) -> Int32 {
        do {
            return try dispatch(argv)
        } catch let failure as BenchFailure {
            TraceBenchmark.log("error: \(failure)")
            return failure.status
        } catch {
            TraceBenchmark.log("error: \(error)")
            return 1
        }
    }

    static func dispatch(_ argv: [String]) throws -> Int32 {
        if argv.contains("--help") || argv.contains("-h") {
            print(usage)
            return 0
        }
        guard let verb = argv.first else { throw BenchFailure.usage("missing command") }
        let rest = Array(argv.dropFirst())
        switch verb {
        case "trace":
            try parseTrace(rest).run()
            return 0
        case "store":
            try parseStore(rest).run()
            return 0
        case "server":
            return try ServerBenchmark.parse(rest).run()
        case "cluster":
            return try ClusterBenchmark.parse(rest).run()
        case "client":
            return try ClientBenchmark.parse(rest).run()
        case "codegen":
            try CodegenBenchmark.parse(rest).run()
            return 0
        case "records":
            return try RecordsBenchmark.parse(rest).run()
        case "ingest":
            return try IngestBenchmark.parse(rest).run()
        case "database":
            return try DatabaseBenchmark.parse(rest).run()
        case "toml":
            return try parseTOML(rest).run()
        case "directory":
            return try DirectoryBenchmark.parse(rest).run()
        case "collab":
            return try CollabBenchmark.parse(rest).run()
        case "blobs":
            return try BlobsBenchmark.parse(rest).run()
        case "_resident":
            // Child process of resident_doc: _resident <update file> <expected UTF-16 length>.
            #if os(Linux)
            guard rest.count == 2, let expected = Int(rest[1]) else { throw BenchFailure.usage("bad _resident arguments") }
            return try ResidentDoc.child(file: rest[0], expectedLength: expected)
            #else
            throw BenchFailure("_resident is Linux only")
            #endif
        default:
            throw BenchFailure.usage("unknown command '\(verb)'")
        }
    }

    static func parseTOML(_ args: [String]) throws(BenchFailure) -> TOMLBenchmark {
        var bench = TOMLBenchmark()
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--samples": bench.samples = try words.count(arg)
            case "--dir": bench.directory = try words.value(arg)
            case "--python": bench.python = try words.value(arg)
            default: throw BenchFailure.usage("unexpected argument '\(arg)'")
            }
        }
        return bench
    }

    static func parseStore(_ args: [String]) throws(BenchFailure) -> StoreBenchmark {
        var bench = StoreBenchmark(tracePath: "", directory: FileManager.default.temporaryDirectory.path)
        var path: String?
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--samples": bench.samples = try words.count(arg)
            case "--dir": bench.directory = try words.value(arg)
            case "--blob-mb": bench.blobMegabytes = try words.count(arg)
            case "--postgres": bench.postgresURL = try words.value(arg)
            case "--only": bench.only = try words.names(arg, from: StoreBenchmark.names, kind: "measurement")
            default:
                guard !arg.hasPrefix("-"), path == nil else { throw BenchFailure.usage("unexpected argument '\(arg)'") }
                path = arg
            }
        }
        guard let path else { throw BenchFailure.usage("store needs the automerge-paper trace file") }
        bench.tracePath = path
        return bench
    }

    static func parseTrace(_ args: [String]) throws(BenchFailure) -> TraceBenchmark {
        var path: String?
        var bench = TraceBenchmark(path: "")
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--samples": bench.samples = try words.count(arg)
            case "--fast-samples": bench.fastSamples = try words.count(arg)
            case "--resident-samples": bench.residentSamples = try words.count(arg)
            case "--write-update": bench.writeUpdate = try words.value(arg)
            case "--only": bench.only = try words.names(arg, from: TraceBenchmark.names, kind: "measurement")
            default:
                guard !arg.hasPrefix("-") else { throw BenchFailure.usage("unknown option '\(arg)'") }
                guard path == nil else { throw BenchFailure.usage("trace takes one trace file") }
                path = arg
            }
        }
        guard let path else { throw BenchFailure.usage("trace needs a trace file") }
        bench.path = path
        return bench
    }
}
