import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// Which local updates still need the server, across restarts, evict and delete.
@Suite struct DocumentOutboundTests {
    let id = DocumentID(rawValue: "shared-notes")!

    /// Three local edits and one remote update, as an attached document sees them.
    func editSomething(_ opened: StoredDocument) throws {
        let text = try opened.doc.getText("t")
        try text.insert(0, "a")
        try text.insert(1, "b")
        let remote = Doc()
        try remote.getMap("m").set("from", "server")
        try opened.doc.applyUpdate(remote.encodeStateAsUpdate(), origin: DocumentStore.remoteOrigin)
        try text.insert(2, "c")
    }

    @Test func unacknowledgedLocalUpdatesSurviveARestartAndAreTrimmedByAcks() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("store.db")
        do {
            let store = try DocumentStore(path: path, options: DocumentStoreTests.manualFlush)
            let opened = try store.open(id, createIfMissing: true)
            try editSomething(opened)
            try opened.close()
        }
        let store = try DocumentStore(path: path, options: DocumentStoreTests.manualFlush)
        let pending = try store.unacknowledgedUpdates(id)
        // Sequences 1, 2 and 4 are local; 3 came from the server and is not resent.
        #expect(pending.map(\.sequence) == [1, 2, 4])
        #expect(try store.hasUnacknowledgedWrites(id))

        try store.acknowledge(id, through: 2)
        #expect(try store.unacknowledgedUpdates(id).map(\.sequence) == [4])
        #expect(try store.metadata(id).acknowledgedSequence == 2)
        let beyond = #expect(throws: AccordError.self) { try store.acknowledge(id, through: 99) }
        #expect(beyond?.code == .invalidArgument)

        // Compaction folds the log but keeps what is still to be sent.
        #expect(try store.compact(id) != .nothingToCompact)
        #expect(try store.metadata(id).logCount == 0)
        #expect(try store.unacknowledgedUpdates(id).map(\.sequence) == [4])
        try store.acknowledge(id, through: 4)
        #expect(try !store.hasUnacknowledgedWrites(id))
    }

    /// While a flush is committing, its local updates are neither in the buffer nor in
    /// the metadata yet; they must still count as unacknowledged.
    @Test func writesInTheMiddleOfACommitStillCountAsUnacknowledged() async throws {
        let adapter = GatedCommitAdapter()
        let store = DocumentStore(storage: SerialStorage(adapter), options: DocumentStoreTests.manualFlush)
        try store.create(id)
        try store.append([0, 0], to: id)
        adapter.holdNextCommit()
        let flushing = Thread { try? store.flush() }
        flushing.start()
        adapter.waitUntilHeld()
        #expect(try store.hasUnacknowledgedWrites(id))
        adapter.release()
        try await eventually { try store.metadata(id).lastLocalSequence == 1 }
        #expect(try store.hasUnacknowledgedWrites(id))
        try store.acknowledge(id, through: 1)
        #expect(try !store.hasUnacknowledgedWrites(id))
    }

    private func eventually(_ condition: () throws -> Bool) async throws {
        for _ in 0..<1000 where try !condition() { try await Task.sleep(for: .milliseconds(5)) }
        #expect(try condition())
    }

    @Test func evictRefusesWhileWritesAreUnacknowledgedUnlessForced() throws {
        let store = DocumentStore(storage: .inMemory(), options: DocumentStoreTests.manualFlush)
        let opened = try store.open(id, createIfMissing: true)
        try editSomething(opened)
        let expected = opened.doc.encodeStateAsUpdate()
        try opened.close()

        let refused = #expect(throws: AccordError.self) { try store.evict(id) }
        #expect(refused?.code == .unacknowledgedWrites)
        #expect(try store.metadata(id).isResident)

        try store.acknowledge(id, through: try store.metadata(id).lastSequence)
        try store.evict(id)
        let metadata = try store.metadata(id)
        #expect(!metadata.isResident)
        #expect(metadata.size == 0)
        let evicted = #expect(throws: AccordError.self) { try store.load(id) }
        #expect(evicted?.code == .documentEvicted)

        // Back from the server: resident again, and new sequences continue after the old.
        try store.restore(id, snapshot: expected)
        #expect(try store.load(id).encodeStateAsUpdate() == expected)
        #expect(try store.append(expected, to: id) == metadata.lastSequence + 1)
    }

    @Test func forcedEvictDropsUnsentEdits() throws {
        let store = DocumentStore(storage: .inMemory(), options: DocumentStoreTests.manualFlush)
        let opened = try store.open(id, createIfMissing: true)
        try editSomething(opened)
        try opened.close()
        try store.evict(id, force: true)
        #expect(try store.unacknowledgedUpdates(id).isEmpty)
        #expect(try !store.metadata(id).isResident)
    }

    @Test func localOnlyDocumentsKeepNothingForSending() throws {
        let store = DocumentStore(storage: .inMemory(), options: DocumentStoreTests.manualFlush)
        try store.create(id, localOnly: true)
        let opened = try store.open(id)
        try editSomething(opened)
        try opened.close()
        #expect(try store.unacknowledgedUpdates(id).isEmpty)
        // Nothing waits for a server, yet no server holds the content: evicting needs force.
        let refused = #expect(throws: AccordError.self) { try store.evict(id) }
        #expect(refused?.code == .unacknowledgedWrites)
        #expect(try store.metadata(id).isResident)
        try store.evict(id, force: true)
        #expect(try !store.metadata(id).isResident)
    }

    @Test func deleteAndWipeAllRemoveEverything() throws {
        let storage = SerialStorage.inMemory()
        let store = DocumentStore(storage: storage, options: DocumentStoreTests.manualFlush)
        let other = DocumentID(rawValue: "other")!
        for doc in [id, other] {
            let opened = try store.open(doc, createIfMissing: true)
            try editSomething(opened)
            try opened.close()
        }
        try store.delete(id)
        #expect(try store.documents().map(\.id) == [other])
        let gone = #expect(throws: AccordError.self) { try store.load(id) }
        #expect(gone?.code == .documentNotFound)
        #expect(try storage.withAdapter { try $0.logKeys(in: StorageCategory("doc.log")) } == ["other"])

        try store.wipeAll()
        #expect(try store.documents().isEmpty)
        let leftovers = try storage.withAdapter { adapter in
            try ["doc.meta", "doc.snapshot"].flatMap { try adapter.keys(in: StorageCategory($0)) }
                + ["doc.log", "doc.outbound"].flatMap { try adapter.logKeys(in: StorageCategory($0)) }
        }
        #expect(leftovers.isEmpty)
        // The store is usable after a wipe, from sequence 1 again.
        try store.create(id)
        #expect(try store.append(Doc().encodeStateAsUpdate(), to: id) == 1)
    }
}

/// Holds one commit until the test releases it, so a test can look at the store while
/// the commit is under way.
final class GatedCommitAdapter: ForwardingAdapter, @unchecked Sendable {
    // The semaphores are thread-safe; `armed` is set before the committing thread starts.
    private let held = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)
    private var armed = false

    func holdNextCommit() { armed = true }
    func waitUntilHeld() { held.wait() }
    func release() { gate.signal() }

    override func commit(_ batch: [StorageOperation]) throws {
        if armed {
            armed = false
            held.signal()
            gate.wait()
        }
        try inner.commit(batch)
    }
}
