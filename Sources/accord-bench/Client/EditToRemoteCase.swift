import AccordCRDT
import AccordStore
import AccordSync
import Foundation

/// `edit_to_remote_<N>`: N clients with one document open, one of them types; each
/// sample is the time from the edit (just before `withDocument` is called on the
/// editing client) until the edit is applied in another client's `Doc` (an observer on
/// its text, called on that client's queue as the remote update integrates), so with N
/// clients every edit gives N - 1 samples.
///
/// What lies in between: the actor hop, the store's flush delay (10 ms by default; an
/// edit goes up only once durable, after an fsync), the send, the server's apply and
/// relay (it does not wait for its own commit to relay), and the receiver's apply.
/// Edits are spaced: the next one starts after the previous one has reached every
/// receiver, plus 5 ms, so this is latency on an idle system, not under load.
struct EditToRemoteCase: ClientCase {
    let clients: Int
    let edits: Int
    var name: String { "edit_to_remote_\(clients)" }
    static let document: DocumentID = "bench-edit"
    static let root = "t"

    func run(on server: RunningServer, storeDirectory: String) async throws -> BenchRecord {
        let factory = BenchClients(server: server, directory: storeDirectory)
        let book = LatencyBook()
        var fleet: [AccordClient] = []
        defer { for client in fleet { Task { await client.stop() } } }
        for index in 0..<clients {
            let (client, _) = try factory.client("c\(index)")
            fleet.append(client)
            await client.start()
            try await client.open(Self.document)
        }
        for client in fleet {
            try await BenchClients.waitUntil("client synced") { await client.isSynced(Self.document) }
        }
        for receiver in fleet.dropFirst() {
            try await receiver.withDocument(Self.document) { doc in
                // Never cancelled: the observer lives as long as the client's Doc.
                _ = try doc.getText(Self.root).observe { event in
                    guard !event.isLocal else { return }
                    let now = ContinuousClock.now
                    for case .insert(.text(let inserted), _) in event.delta { book.received(inserted, at: now) }
                }
            }
        }

        let editor = fleet[0]
        let receivers = clients - 1
        for edit in 0..<edits {
            let marker = book.stamp()
            try await editor.withDocument(Self.document) { doc in
                let text = try doc.getText(Self.root)
                try text.insert(text.length, marker)
            }
            let expected = (edit + 1) * receivers
            try await BenchClients.waitUntil("edit \(edit) at every receiver", timeout: .seconds(30)) {
                book.delivered >= expected
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        for client in fleet { await client.stop() }
        fleet = []
        var record = BenchRecord.latencies(
            name, book.latencies,
            note: "local edit to applied in another client's Doc, through accord serve; \(clients) clients on one document, "
                + "\(edits) spaced edits x \(receivers) receivers; includes the store's 10 ms flush delay before sending")
        record["clients"] = BenchRecord.int(clients)
        record["edits"] = BenchRecord.int(edits)
        return record
    }
}
