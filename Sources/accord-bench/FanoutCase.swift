import Foundation

/// `fanout`: one document, `clients` clients, one of them typing `rate` updates a second
/// for `duration`; every edit goes to the other `clients - 1`. Reports deliveries per
/// second and the send-to-receipt latency, then checks that every replica has the
/// typist's text (`converged`).
struct FanoutCase: LoadCase {
    let name = "fanout"
    var clients: Int
    var rate: Int = 50
    var duration: Duration

    func run(on server: ServerUnderTest, in environment: LoadEnvironment) async throws -> BenchRecord {
        try await withServer(server, environment) { running in
            let book = LatencyBook()
            let fleet = try running.fleet()
            let all = try await fleet.openAll(clients, book: book) { _ in running.roomURL("fanout") }
            let typist = all[0]
            let interval = Duration.seconds(1) / rate
            var next = ContinuousClock.now
            let end = next + duration
            while next < end {
                try await Task.sleep(until: next, clock: .continuous)
                try typist.append(book.stamp())
                next += interval
            }
            let expected = book.sent * (clients - 1)
            let complete = await ClientFleet.drain(book, expected: expected, timeout: .seconds(10))
            if !complete {
                TraceBenchmark.log("\(name): \(book.delivered) of \(expected) deliveries after 10 s of draining")
            }
            let length = typist.textLength
            let converged = all.allSatisfy { $0.textLength == length }
            let rss = running.residentBytes()
            await fleet.stop()

            var record = record(for: server)
            record["connections"] = BenchRecord.int(all.count)
            record.setDeliveries(book, expected: expected)
            record.setBytes("rss_bytes", rss)
            record["rate_per_s"] = BenchRecord.int(rate)
            record["duration_s"] = BenchRecord.rounded(Timing.milliseconds(duration) / 1000)
            record["converged"] = .bool(converged)
            record.setMalformed(all, case: name)
            return record
        }
    }
}
