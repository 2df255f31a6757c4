import AccordCRDT
import Foundation

/// One result line, in the format scripts/bench_reference.py prints and
/// scripts/bench_table.py reads: `name`, `engine`, `trace`, `median_ms`, `min_ms`,
/// `samples`, then optional `bytes`, `peak_rss_bytes`, `note` and the like.
struct BenchRecord {
    private var fields: OrderedObject

    init(name: String, trace: String, timing: Timing) {
        fields = OrderedObject([
            ("name", .string(name)),
            ("engine", "accord"),
            ("trace", .string(trace)),
            ("median_ms", Self.rounded(timing.median)),
            ("min_ms", Self.rounded(timing.min)),
            ("samples", .int(Int64(timing.samples.count))),
        ])
        if timing.warmup > 0 { fields["warmup_ms"] = Self.rounded(timing.warmup) }
    }

    /// A record without timing samples (the load cases of `accord-bench server`), whose
    /// figures are set by key.
    init(name: String, engine: String) {
        fields = OrderedObject([("name", .string(name)), ("engine", .string(engine))])
    }

    subscript(key: String) -> AnyValue? {
        get { fields[key] }
        set { fields[key] = newValue }
    }

    /// Writes the line to stdout at once (unbuffered), so a pipe sees each result as
    /// soon as it exists.
    func emit() {
        FileHandle.standardOutput.write(Data((AnyValue.object(fields).jsonText + "\n").utf8))
    }

    /// Milliseconds to three decimals, as the reference script rounds them.
    static func rounded(_ ms: Double) -> AnyValue { .double((ms * 1000).rounded() / 1000) }

    static func int(_ n: Int) -> AnyValue { .int(Int64(n)) }
}
