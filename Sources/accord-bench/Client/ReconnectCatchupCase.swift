import AccordCRDT
import AccordStore
import AccordSync
import Foundation

/// `reconnect_catchup_10k`: a client pinned offline makes 10,000 single-character
/// edits (10,000 transactions, so 10,000 updates in its store), then goes online.
/// Timed from `goOnline()` until the client is synced again: its round's step 2 arrived
/// and the server acknowledged (made durable) every edit, checked in the client's
/// store. `other_client_median_ms` is the median time until a second client, online
/// throughout, holds all 10,000 characters: the figure that shows nothing was lost on
/// the way. Each sample uses a new document.
struct ReconnectCatchupCase: ClientCase {
    let edits: Int
    let samples: Int
    var name: String { "reconnect_catchup_\(edits / 1_000)k" }
    static let root = "t"

    func run(on server: RunningServer, storeDirectory: String) async throws -> BenchRecord {
        let factory = BenchClients(server: server, directory: storeDirectory)
        let (editor, store) = try factory.client("editor")
        let (observer, _) = try factory.client("observer")
        defer { Task { await editor.stop(); await observer.stop() } }
        await editor.start()
        await observer.start()

        var synced: [Double] = []
        var atOther: [Double] = []
        // The first sample is the warm-up.
        for sample in 0...samples {
            let id = try DocumentID(validating: "bench-catchup-\(sample)")
            try await editor.open(id)
            try await observer.open(id)
            try await BenchClients.waitUntil("both synced") {
                let (a, b) = (await editor.isSynced(id), await observer.isSynced(id))
                return a && b
            }
            let arrival = Arrival()
            let expected = edits
            try await observer.withDocument(id) { doc in
                let text = try doc.getText(Self.root)
                _ = text.observe { _ in if text.length >= expected { arrival.mark() } }
            }

            await editor.goOffline()
            try await editor.withDocument(id) { doc in
                let text = try doc.getText(Self.root)
                for i in 0..<expected { try text.insert(i, String(UnicodeScalar(UInt8(97 + i % 26)))) }
            }
            try await BenchClients.waitUntil("edits durable") {
                try store.flush()
                return try store.unacknowledgedUpdates(id).count == expected
            }

            let start = ContinuousClock.now
            await editor.goOnline()
            try await BenchClients.waitUntil("the editor synced again") {
                guard await editor.isSynced(id) else { return false }
                return try !store.hasUnacknowledgedWrites(id)
            }
            let syncedAt = ContinuousClock.now
            try await BenchClients.waitUntil("the other client has every edit") { arrival.instant != nil }
            if sample > 0, let arrived = arrival.instant {
                synced.append(Timing.milliseconds(syncedAt - start))
                atOther.append(Timing.milliseconds(arrived - start))
            }
            await editor.close(id)
            await observer.close(id)
        }
        await editor.stop()
        await observer.stop()
        var record = BenchRecord.latencies(
            name, synced,
            note: "goOnline() of a client with \(edits) single-character offline edits until it is synced and every edit "
                + "acknowledged; other_client_median_ms: until a second client holds them all")
        record["other_client_median_ms"] = BenchRecord.rounded(Timing(samples: atOther, warmup: 0).median)
        record["edits"] = BenchRecord.int(edits)
        return record
    }
}

/// The first moment a condition was seen on a client's queue, read from the bench's task.
private final class Arrival: @unchecked Sendable {
    // Invariant: `first` is only touched with `lock` held.
    private let lock = NSLock()
    private var first: ContinuousClock.Instant?

    func mark() {
        let now = ContinuousClock.now
        lock.withLock { if first == nil { first = now } }
    }

    var instant: ContinuousClock.Instant? { lock.withLock { first } }
}
