import AccordCRDT
import AccordRecords
import AccordStore
import AccordSync
import Foundation
import Testing

@Suite(.timeLimit(.minutes(1))) struct RecordSubscriptionTests {
    static let tasks = ClientRecordsTests.tasks

    private func client() async throws -> (AccordClient, ClientRecords) {
        let client = AccordClient(serverURL: "ws://127.0.0.1:9", store: try DocumentStore(storage: .inMemory())) { "t" }
        await client.goOffline()
        await client.start()
        let records = try await client.registerModels([Self.tasks])
        try await client.create("inbox", localOnly: true)
        return (client, records)
    }

    final class Received: @unchecked Sendable {
        private let lock = NSLock()
        private var changes: [RecordChange] = []
        func add(_ change: RecordChange) { lock.withLock { changes.append(change) } }
        var all: [RecordChange] { lock.withLock { changes } }
    }

    @Test func subscribersHearOfLocalAndRemoteChangesOnceDurableUntilCancelled() async throws {
        let (client, records) = try await client()
        let received = Received()
        let subscription = records.subscribe("tasks") { received.add($0) }
        try await records.save("tasks", RecordWrite(id: "t1", values: ["title": "a"]), in: "inbox", client: client)
        try await waitFor { received.all.map(\.ids) == [["t1"]] }
        #expect(received.all.first?.document == "inbox")
        #expect(received.all.first?.model == "tasks")

        // An update from a peer, applied as the sync engine would.
        let peer = Doc(clientID: 99)
        try RecordLayout.write(["title": "from peer"], id: "p1", model: Self.tasks, in: peer)
        let update = peer.encodeStateAsUpdate()
        try await client.withDocument("inbox") { try $0.applyUpdate(update, origin: DocumentStore.remoteOrigin) }
        try await waitFor { received.all.map(\.ids) == [["t1"], ["p1"]] }

        // Edits that touch no record of the model announce nothing.
        try await client.withDocument("inbox") { try $0.getText("notes").insert(0, "x") }
        subscription.cancel()
        try await records.save("tasks", RecordWrite(id: "t2", values: ["title": "b"]), in: "inbox", client: client)
        try await client.withDocument("inbox") { _ in }  // let the store's flush be announced
        try await Task.sleep(for: .milliseconds(100))
        #expect(received.all.map(\.ids) == [["t1"], ["p1"]])
        await client.stop()
    }

    @Test func aLiveQueryReportsLoadingThenEmptyThenRows() async throws {
        let (client, records) = try await client()
        var states = records.liveQuery("tasks", filter: ["done": false], debounce: .milliseconds(1)).makeAsyncIterator()
        guard case .loading? = await states.next() else { Issue.record("no loading state first"); return }
        guard case .empty? = await states.next() else { Issue.record("no empty state"); return }
        try await records.save("tasks", RecordWrite(id: "t1", values: ["title": "a"]), in: "inbox", client: client)
        guard case .loaded(let rows)? = await states.next() else { Issue.record("no rows"); return }
        #expect(rows.map(\.id) == ["t1"])
        await client.stop()
    }

    private func waitFor(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw AccordError(.invalidArgument, "timed out") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
