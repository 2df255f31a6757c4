import AccordCRDT
import Foundation

/// `accord-bench collab`: the engine's editing features on their own.
///
/// `undo_redo_1k`: 1,000 characters typed one transaction each into a text with an
/// ``UndoManager`` (capture timeout 0, depth 1,000, so 1,000 steps), then every step
/// undone (`median_ms`, the record's time) and every step redone (`redo_median_ms`).
/// Typing is not timed. Target: under 50 ms each way.
struct CollabBenchmark {
    var samples = 10
    static let names = ["undo_redo_1k"]
    static let usage = """
          accord-bench collab [--samples N]
              The engine's editing features: undo_redo_1k (1,000 typed characters, one step
              each, then undo all as median_ms and redo all as redo_median_ms; target
              under 50 ms each way).
        """

    static func parse(_ args: [String]) throws(BenchFailure) -> CollabBenchmark {
        var bench = CollabBenchmark()
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--samples": bench.samples = try words.count(arg)
            default: throw BenchFailure.usage("unexpected argument '\(arg)'")
            }
        }
        return bench
    }

    func run() throws -> Int32 {
        try undoRedo(characters: 1_000)
        return 0
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
