/// Wall-clock samples of one measurement, in milliseconds.
struct Timing {
    var samples: [Double]
    var warmup: Double

    /// The middle sample (mean of the two middle ones for an even count, as Python's
    /// `statistics.median`, so both sides of the comparison agree).
    var median: Double {
        let s = samples.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    var min: Double { samples.min() ?? 0 }

    /// Runs `body` once to warm up (caches, allocator, lazy tables), then `count` times,
    /// timing each run with `ContinuousClock`. Returns the timings and the last result.
    /// The previous result is released before each run, so runs do not pile up memory.
    static func measure<R>(samples count: Int, _ body: () throws -> R) rethrows -> (Timing, R) {
        let clock = ContinuousClock()
        var times: [Double] = []
        var warmup = 0.0
        var result: R?
        for i in 0...count {
            result = nil
            let start = clock.now
            let value = try body()
            let elapsed = clock.now - start
            result = value
            if i == 0 { warmup = milliseconds(elapsed) } else { times.append(milliseconds(elapsed)) }
        }
        // `0...count` runs at least once, so there is a result.
        guard let result else { preconditionFailure("measure ran no sample") }
        return (Timing(samples: times, warmup: warmup), result)
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15
    }
}
