/// Why a benchmark run stopped: bad arguments, an unreadable trace, or a replay that
/// did not reproduce the trace's final text (a wrong engine must not report timings).
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    /// 2 for usage errors (as in `accord`), 1 for everything else.
    var status: Int32

    init(_ description: String, status: Int32 = 1) {
        self.description = description
        self.status = status
    }

    static func usage(_ message: String) -> BenchFailure {
        BenchFailure("\(message) (see 'accord-bench --help')", status: 2)
    }
}
