import AccordCRDT
import AccordStore
import AccordSync
import Foundation

/// `open_local_cached`: a client, online, opens a document its store already holds (the
/// automerge-paper trace's final state, 104,852 characters, as one compacted snapshot)
/// and reads its text length. Timed from `open` until the length is read; `open`
/// returns from the store without waiting for the network (what `waitForLoad: .local`
/// asks for; the client has no other mode yet). The document is closed between
/// samples, after the server's round settled, so no sample pays for another's traffic.
/// Target: at most 10 ms.
struct OpenCachedCase: ClientCase {
    let name = "open_local_cached"
    var tracePath: String
    var samples: Int
    static let document: DocumentID = "bench-paper"
    static let targetMilliseconds = 10

    func run(on server: RunningServer, storeDirectory: String) async throws -> BenchRecord {
        let trace = try EditingTrace.load(path: tracePath)
        let state = try TraceReplay.replay(trace).encodeStateAsUpdate()
        let length = trace.endContent.utf16.count
        let (client, store) = try BenchClients(server: server, directory: storeDirectory).client("reader")
        defer { Task { await client.stop() } }
        do {
            // As a client that synced it earlier keeps it: one snapshot, nothing to send.
            try store.create(Self.document)
            try store.restore(Self.document, snapshot: state)
        } catch {
            throw BenchFailure("cannot store the document: \(error)")
        }
        await client.start()
        try await BenchClients.waitUntil("online") { await client.isOnline }

        var times: [Double] = []
        // The first open is the warm-up; it also uploads the document to the server.
        for _ in 0...samples {
            let start = ContinuousClock.now
            try await client.open(Self.document, waitForLoad: .local)
            let opened = try await client.withDocument(Self.document) { doc in try doc.getText(TraceReplay.rootName).length }
            times.append(Timing.milliseconds(ContinuousClock.now - start))
            guard opened == length else { throw BenchFailure("\(name): opened \(opened) characters, expected \(length)") }
            try await BenchClients.waitUntil("synced") { await client.isSynced(Self.document) }
            await client.close(Self.document)
        }
        await client.stop()
        let warmup = times.removeFirst()
        var record = BenchRecord.latencies(
            name, times,
            note: "open a cached automerge-paper document (compacted snapshot) in an online client and read its text length; "
                + "open returns from the store without waiting for the network")
        record["warmup_ms"] = BenchRecord.rounded(warmup)
        record["target_ms"] = BenchRecord.int(Self.targetMilliseconds)
        record["bytes"] = BenchRecord.int(state.count)
        record["text_length"] = BenchRecord.int(length)
        return record
    }
}
