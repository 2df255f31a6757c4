import AccordCRDT
import Foundation

/// `accord-bench collab`: the engine's editing features on their own.
///
/// `undo_redo_1k`: 1,000 characters typed one transaction each into a text with an
/// ``UndoManager`` (capture timeout 0, depth 1,000, so 1,000 steps), then every step
/// undone (`median_ms`, the record's time) and every step redone (`redo_median_ms`).
/// Typing is not timed. Target: under 50 ms each way.
///
/// `relative_position_resolve`: 1,000 relative positions at random offsets of the final
/// automerge-paper document (replayed from its trace, untimed), each resolved back to
/// its offset; `us_per_resolve` is the median sample over 1,000, each sample starting
/// from a new document state (so the position index is rebuilt). Target: under 5 µs.
/// `us_per_lone_resolve`: one resolve per document state (the list walk, no index).
///
/// `counter_increase`: 10,000 increases of a ``YCounter``, one transaction each (`ops_per_s`).
///
/// `channel_fanout`: one channel, 500 realtime clients, one broadcasting 100 messages
/// at 20 a second (10,000 deliveries a second); send-to-receipt latency p50/p99
/// (``ChannelFanoutCase``). Target: p99 under 50 ms.
struct CollabBenchmark {
    var samples = 10
    var tracePath = "../shared/traces/automerge-paper.json.gz"
    var only: Set<String>?
    var channelClients = 500
    var channelRate = 20
    static let cases = ["undo_redo_1k", "relative_position_resolve", "counter_increase", "channel_fanout"]
    static let usage = """
          accord-bench collab [--samples N] [--trace PATH]
              The engine's editing features: undo_redo_1k (1,000 typed characters, one step
              each, then undo all as median_ms and redo all as redo_median_ms; target
              under 50 ms each way) and relative_position_resolve (us_per_resolve of 1,000
              positions in the automerge-paper document, default
              ../shared/traces/automerge-paper.json.gz; target under 5 us) and
              counter_increase (ops_per_s of 10,000 increases, one transaction each) and
              channel_fanout (p50_ms/p99_ms of 100 broadcasts, --rate N a second (20), on
              one channel to --clients N realtime clients (500); target p99 under 50 ms).
              --only NAME[,NAME] runs just those.
        """

    static func parse(_ args: [String]) throws(BenchFailure) -> CollabBenchmark {
        var bench = CollabBenchmark()
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--samples": bench.samples = try words.count(arg)
            case "--trace": bench.tracePath = try words.value(arg)
            case "--clients": bench.channelClients = try words.count(arg)
            case "--rate": bench.channelRate = try words.count(arg)
            case "--only":
                let names = Set(try words.value(arg).split(separator: ",").map(String.init))
                if let unknown = names.first(where: { !cases.contains($0) }) {
                    throw BenchFailure.usage("unknown collab case '\(unknown)'")
                }
                bench.only = names
            default: throw BenchFailure.usage("unexpected argument '\(arg)'")
            }
        }
        return bench
    }

    func run() throws -> Int32 {
        func wanted(_ name: String) -> Bool { only?.contains(name) ?? true }
        if wanted("undo_redo_1k") { try undoRedo(characters: 1_000) }
        if wanted("relative_position_resolve") { try resolvePositions(count: 1_000) }
        if wanted("counter_increase") { try counterIncrease(count: 10_000) }
        if wanted("channel_fanout") {
            let fanout = ChannelFanoutCase(clients: max(2, channelClients), rate: max(1, channelRate))
            return AsyncCases.run {
                do {
                    try await fanout.run().emit()
                    return 0
                } catch {
                    TraceBenchmark.log("channel_fanout: \(error)")
                    return 1
                }
            }
        }
        return 0
    }

    /// `counter_increase`: 10,000 increases of a root counter, one transaction each.
    private func counterIncrease(count: Int) throws {
        let (timing, value) = try Timing.measure(samples: samples) { () throws -> Int64 in
            let doc = Doc(clientID: 1)
            let counter = try doc.getCounter("likes")
            for _ in 0..<count { try counter.increase(by: 1) }
            return counter.value
        }
        guard value == Int64(count) else { throw BenchFailure("counter_increase: value \(value), expected \(count)") }
        var record = BenchRecord(name: "counter_increase", trace: "increments_10000", timing: timing)
        record["ops_per_s"] = BenchRecord.int(Int(Double(count) / (timing.median / 1000)))
        record.emit()
    }

    private func resolvePositions(count: Int) throws {
        let trace = try EditingTrace.load(path: tracePath)
        let doc = try TraceReplay.replay(trace)
        let text = try doc.getText(TraceReplay.rootName)
        var rng = SystemRandomNumberGenerator()
        var offsets: [Int] = []
        var positions: [RelativePosition] = []
        for _ in 0..<count {
            let offset = Int.random(in: 0..<text.length, using: &rng)
            offsets.append(offset)
            positions.append(try text.relativePosition(at: offset))
        }
        let (timing, resolved) = try Timing.measure(samples: samples) { () throws -> Int in
            // A new document state first (an empty transaction), so each sample pays for
            // what resolving every cursor after an edit costs: the position index is
            // built again (PositionIndex), not carried over from the previous sample.
            doc.transact {}
            var checked = 0
            for (i, position) in positions.enumerated() {
                guard doc.resolve(position)?.index == offsets[i] else {
                    throw BenchFailure("relative_position_resolve: position \(i) did not resolve to \(offsets[i])")
                }
                checked += 1
            }
            return checked
        }
        var record = BenchRecord(name: "relative_position_resolve", trace: trace.name, timing: timing)
        record["resolves"] = BenchRecord.int(resolved)
        record["us_per_resolve"] = .double((timing.median * 1000 / Double(count) * 1000).rounded() / 1000)
        // One resolve per document state (a lone cursor after each edit): the list walk.
        let clock = ContinuousClock()
        var spent = Duration.zero
        for (i, position) in positions.enumerated() {
            doc.transact {}  // not timed
            let start = clock.now
            let index = doc.resolve(position)?.index
            spent += clock.now - start
            guard index == offsets[i] else {
                throw BenchFailure("relative_position_resolve: lone position \(i) did not resolve to \(offsets[i])")
            }
        }
        let lone = Timing.milliseconds(spent) * 1000 / Double(count)
        record["us_per_lone_resolve"] = .double((lone * 1000).rounded() / 1000)
        record["target_us"] = BenchRecord.int(5)
        record.emit()
    }

    private func undoRedo(characters: Int) throws {
        let clock = ContinuousClock()
        var undoTimes: [Double] = []
        var redoTimes: [Double] = []
        for sample in 0...samples {
            let doc = Doc(clientID: 1)
            let text = try doc.getText("body")
            let undo = UndoManager(text, options: .init(captureTimeout: 0, maxDepth: characters))
            let letters = Array("the quick brown fox jumps over the lazy dog ").map(String.init)
            for i in 0..<characters { try text.insert(i, letters[i % letters.count]) }
            let start = clock.now
            var undone = 0
            while try undo.undo() { undone += 1 }
            let middle = clock.now
            var redone = 0
            while try undo.redo() { redone += 1 }
            let end = clock.now
            guard undone == characters, redone == characters, text.length == characters else {
                throw BenchFailure("undo_redo_1k: undid \(undone), redid \(redone), length \(text.length)")
            }
            // The first run warms up.
            if sample > 0 {
                undoTimes.append(Timing.milliseconds(middle - start))
                redoTimes.append(Timing.milliseconds(end - middle))
            }
        }
        let undoTiming = Timing(samples: undoTimes, warmup: 0)
        let redoTiming = Timing(samples: redoTimes, warmup: 0)
        var record = BenchRecord(name: "undo_redo_1k", trace: "typed_1000_chars", timing: undoTiming)
        record["redo_median_ms"] = BenchRecord.rounded(redoTiming.median)
        record["redo_min_ms"] = BenchRecord.rounded(redoTiming.min)
        record["steps"] = BenchRecord.int(characters)
        record["target_ms"] = BenchRecord.int(50)
        record.emit()
    }
}
