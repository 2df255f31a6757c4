extension BenchRecord {
    /// A client case's record: `p50_ms` and `p99_ms` (nearest rank), `median_ms` (the
    /// mean of the middle two for an even count, as everywhere in accord-bench), `min_ms`
    /// and `samples`, from the samples in milliseconds.
    static func latencies(_ name: String, _ samples: [Double], note: String) -> BenchRecord {
        var record = BenchRecord(name: name, engine: "accord")
        record["trace"] = "client"
        record["p50_ms"] = rounded(percentile(samples, 0.5))
        record["p99_ms"] = rounded(percentile(samples, 0.99))
        let timing = Timing(samples: samples, warmup: 0)
        record["median_ms"] = rounded(timing.median)
        record["min_ms"] = rounded(timing.min)
        record["samples"] = int(samples.count)
        record["note"] = .string(note)
        return record
    }

    /// The `p`-quantile (0...1), nearest rank; 0 for no samples.
    static func percentile(_ samples: [Double], _ p: Double) -> Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
