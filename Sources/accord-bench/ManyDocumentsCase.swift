import Foundation

/// `many_documents`: `clients` clients spread evenly over `documents` documents, each
/// sending one update a second (their sends spread over the second) for `duration`.
/// Every edit goes to the other clients of its document. Reports deliveries per second
/// and the send-to-receipt latency.
struct ManyDocumentsCase: LoadCase {
    let name = "many_documents"
    var clients: Int
    var documents: Int
    var duration: Duration

    func run(on server: ServerUnderTest, in environment: LoadEnvironment) async throws -> BenchRecord {
        try await withServer(server, environment) { running in
            let book = LatencyBook()
            let fleet = try running.fleet()
            let documents = self.documents
            let all = try await fleet.openAll(clients, book: book) { running.roomURL("many-\($0 % documents)") }
            // Peers of each client's document, to know how many deliveries each send owes.
            var perDocument = [Int](repeating: 0, count: documents)
            for index in 0..<clients { perDocument[index % documents] += 1 }

            let start = ContinuousClock.now
            let seconds = Int(Timing.milliseconds(duration) / 1000)
            var expected = 0
            for second in 0..<seconds {
                for index in 0..<clients {
                    let due = start + .seconds(second) + .seconds(1) * (Double(index) / Double(clients))
                    if due > .now + .microseconds(500) { try await Task.sleep(until: due, clock: .continuous) }
                    try all[index].append(book.stamp())
                    expected += perDocument[index % documents] - 1
                }
            }
            let complete = await ClientFleet.drain(book, expected: expected, timeout: .seconds(10))
            if !complete {
                TraceBenchmark.log("\(name): \(book.delivered) of \(expected) deliveries after 10 s of draining")
            }
            let rss = running.residentBytes()
            await fleet.stop()

            var record = record(for: server)
            record["connections"] = BenchRecord.int(all.count)
            record["documents"] = BenchRecord.int(documents)
            record.setDeliveries(book, expected: expected)
            record.setBytes("rss_bytes", rss)
            record["duration_s"] = BenchRecord.int(seconds)
            record.setMalformed(all, case: name)
            return record
        }
    }
}
