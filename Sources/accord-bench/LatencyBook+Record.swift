extension BenchRecord {
    /// The delivery figures of an edit load: `msgs_per_s` (edits arriving at other
    /// clients per second, from the first send to the last receipt), `p50_ms` and
    /// `p99_ms` (send to receipt), and the counts behind them.
    mutating func setDeliveries(_ book: LatencyBook, expected: Int) {
        self["msgs_per_s"] = BenchRecord.rounded(book.deliveriesPerSecond)
        self["p50_ms"] = BenchRecord.rounded(book.percentile(0.5))
        self["p99_ms"] = BenchRecord.rounded(book.percentile(0.99))
        self["updates_sent"] = BenchRecord.int(book.sent)
        self["delivered"] = BenchRecord.int(book.delivered)
        self["expected"] = BenchRecord.int(expected)
    }
}

extension BenchRecord {
    /// `malformed_messages`, only when some client received frames it could not decode
    /// (a protocol mismatch with the server: the figures beside it are suspect).
    mutating func setMalformed(_ clients: [SyncClient], case name: String) {
        let malformed = clients.reduce(0) { $0 + $1.malformedMessages }
        guard malformed > 0 else { return }
        TraceBenchmark.log("warning: \(name): clients received \(malformed) messages they could not decode")
        self["malformed_messages"] = BenchRecord.int(malformed)
    }
}

extension ClientFleet {
    /// Opens `count` clients of an edit load (client `i` on `document(i)`) that report
    /// the markers they receive to `book`. Every one must sync: a load with clients
    /// missing would measure something else.
    func openAll(
        _ count: Int, book: LatencyBook, url: @escaping @Sendable (Int) -> String
    ) async throws(BenchFailure) -> [SyncClient] {
        let (clients, failures) = await open(
            count: count, url: url,
            make: { _ in try SyncClient { text, instant in book.received(text, at: instant) } })
        guard failures.isEmpty else {
            throw BenchFailure("\(failures.count) of \(count) clients failed; first: \(failures[0])")
        }
        return clients.compactMap { $0 }
    }

    /// Waits (at most `timeout`) until `book` has `expected` deliveries; false if not.
    static func drain(_ book: LatencyBook, expected: Int, timeout: Duration) async -> Bool {
        await poll(timeout: timeout) { book.delivered >= expected }
    }
}
