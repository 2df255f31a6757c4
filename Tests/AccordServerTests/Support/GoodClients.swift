import AccordCRDT
import AccordStore
import Foundation

/// The well-behaved side of the hostile-client soak: three writers on the multiplexed
/// endpoint sending acked updates, and a stock-style observer on `/v1/sync/good`. They
/// take turns: each edit sets the writer's counter and appends a token; the time until
/// the observer sees the counter is that edit's latency.
struct GoodClients {
    let document: DocumentID = "good"
    let writers: [SyncTestClient]
    let observer: SyncTestClient

    struct Run: Sendable {
        /// Milliseconds from one writer's edit to the observer having it.
        var latencies: [Double] = []
        /// The edits whose acks arrived.
        var acknowledged: [String] = []
    }

    /// The first writer creates the document and gives read-write link access to the rest.
    static func connect(port: Int, token: @Sendable (String) -> String) async throws -> GoodClients {
        let document: DocumentID = "good"
        var writers: [SyncTestClient] = []
        for index in 0..<3 {
            let writer = try await SyncTestClient.connect(port: port, document: nil, token: token("writer-\(index)"))
            writer.sendsAccordUpdates = true
            writers.append(writer)
        }
        writers[0].open(document)
        try await eventually("the good document exists") { writers[0].frames.contains { $0.document == document } }
        let granted = try HostileClientSoakTests.grantLinkAccess(port: port, document: document, token: token("writer-0"))
        guard granted == 200 else { throw TestFailure("link access answered \(granted)") }
        for writer in writers.dropFirst() { writer.open(document) }
        let observer = try await SyncTestClient.connect(port: port, document: document, token: token("observer"))
        return GoodClients(writers: writers, observer: observer)
    }

    func edit(until deadline: Date) async throws -> Run {
        var run = Run()
        var sent: [[String]] = Array(repeating: [], count: writers.count)
        var step = 0
        while Date() < deadline {
            let index = step % writers.count
            let mark = "w\(index)-\(step);"
            let start = ContinuousClock.now
            try writers[index].edit(document) { doc in
                try doc.getMap("clock").set("w\(index)", .int(Int64(step)))
                let text = try doc.getText("t")
                try text.insert(text.length, mark)
            }
            sent[index].append(mark)
            if try await observerSees(writer: index, step: step) {
                run.latencies.append(HostileClientSoakTests.milliseconds(ContinuousClock.now - start))
            }
            step += 1
            try await Task.sleep(for: .milliseconds(20))
        }
        for (index, writer) in writers.enumerated() {
            run.acknowledged += sent[index].prefix(Int(writer.acks.max() ?? 0))
            writer.close()
        }
        observer.close()
        return run
    }

    /// Polls every millisecond for up to 5 s; false if the edit never arrived.
    private func observerSees(writer index: Int, step: Int) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let seen = observer.edit(document) { doc in
                if case .value(.int(let value))? = try? doc.getMap("clock").get("w\(index)") { return value >= step }
                return false
            }
            if seen { return true }
            try await Task.sleep(for: .milliseconds(1))
        }
        return false
    }
}
