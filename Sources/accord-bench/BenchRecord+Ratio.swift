import AccordCRDT

extension BenchRecord {
    /// The figures a ratio line compares, when both records have them.
    static let comparedFigures = ["connections", "rss_bytes", "msgs_per_s", "p50_ms", "p99_ms", "median_ms", "min_ms"]

    /// `<case>_ratio`: each figure of `accord` divided by the same figure of `other`
    /// (below 1 is less: better for memory and latency, worse for throughput).
    static func ratio(case name: String, accord: BenchRecord, other: BenchRecord, otherEngine: String) -> BenchRecord {
        var record = BenchRecord(name: name + "_ratio", engine: "accord/\(otherEngine)")
        for key in comparedFigures {
            guard let mine = accord[key]?.doubleValue, let theirs = other[key]?.doubleValue, theirs != 0 else { continue }
            record[key] = .double((mine / theirs * 10_000).rounded() / 10_000)
        }
        return record
    }
}
