import AccordCRDT

/// One result line of `accord-bench records`. Unlike the trace lines (always
/// `median_ms`), each names its unit: `value` is the headline figure in `unit` (µs
/// for queries, ms for reopening, records/s for inserts, bytes for sizes), with
/// `median` and `min` of the samples in the same unit where there are samples.
/// Lines comparing with the hand-written schema add `sqlite_value` and
/// `ratio_vs_sqlite` (records index / hand-written; above 1 means the index is slower,
/// or bigger). Lines with a target from issue 15 add `target` and `target_met`.
struct RecordsLine {
    private(set) var record: BenchRecord

    init(_ name: String, unit: String, value: Double, note: String) {
        record = BenchRecord(name: name, engine: "accord")
        record["trace"] = .string(RecordsBenchmark.traceName)
        record["unit"] = .string(unit)
        record["value"] = Self.figure(value)
        record["note"] = .string(note)
    }

    /// A timed line: `value` is the median.
    init(_ name: String, unit: String, timing: Timing, note: String) {
        self.init(name, unit: unit, value: timing.median, note: note)
        record["median"] = Self.figure(timing.median)
        record["min"] = Self.figure(timing.min)
        record["samples"] = BenchRecord.int(timing.samples.count)
    }

    mutating func compare(withSQLite other: Double) {
        record["sqlite_value"] = Self.figure(other)
        if other > 0, let mine = record["value"]?.doubleValue {
            record["ratio_vs_sqlite"] = .double((mine / other * 1_000).rounded() / 1_000)
        }
    }

    mutating func target(_ text: String, met: Bool) {
        record["target"] = .string(text)
        record["target_met"] = .bool(met)
    }

    subscript(key: String) -> AnyValue? {
        get { record[key] }
        set { record[key] = newValue }
    }

    func emit() { record.emit() }

    /// Three significant decimals is plenty for every unit used here.
    static func figure(_ value: Double) -> AnyValue { .double((value * 1_000).rounded() / 1_000) }
}

extension Timing {
    /// Microseconds per call of `body`: a warm-up sample, then `samples` samples of
    /// `iterations` calls each (`body` gets the call's number, to vary its probe).
    /// Iterations are picked so one sample takes about `sampleMilliseconds`, so fast
    /// queries are not lost in clock resolution and slow ones do not take minutes.
    static func perCall(
        samples: Int, sampleMilliseconds: Double = 40, _ body: (Int) throws -> Void
    ) rethrows -> Timing {
        let clock = ContinuousClock()
        let start = clock.now
        try body(0)
        let once = Swift.max(0.001, milliseconds(clock.now - start))
        let iterations = Swift.min(5_000, Swift.max(1, Int(sampleMilliseconds / once)))
        var times: [Double] = []
        var warmup = 0.0
        var call = 1
        for sample in 0...samples {
            let begin = clock.now
            for _ in 0..<iterations {
                try body(call)
                call += 1
            }
            let perCall = milliseconds(clock.now - begin) * 1_000 / Double(iterations)
            if sample == 0 { warmup = perCall } else { times.append(perCall) }
        }
        return Timing(samples: times, warmup: warmup)
    }
}
