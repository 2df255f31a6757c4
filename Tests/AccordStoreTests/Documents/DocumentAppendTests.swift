import Foundation
import Testing
import AccordCRDT
import AccordStore

/// The append path: sequences, and the per-document bookkeeping of a mixed batch.
@Suite struct DocumentAppendTests {
    let empty = Doc().encodeStateAsUpdate()

    /// One flush of updates to two documents, interleaved, local and remote: each
    /// document gets its own sequences, counts and announcement.
    @Test func anInterleavedBatchKeepsEachDocumentsBookkeeping() throws {
        let store = DocumentStore(storage: .inMemory(), options: DocumentStoreTests.manualFlush)
        let synced = DocumentID(rawValue: "synced")!
        let local = DocumentID(rawValue: "local")!
        try store.create(synced)
        try store.create(local, localOnly: true)
        let changes = ChangeList()
        let subscription = store.observeChanges { changes.append($0) }
        defer { subscription.cancel() }

        #expect(try store.append(empty, to: synced) == 1)
        #expect(try store.append(empty, to: synced) == 2)
        #expect(try store.append(empty, to: local) == 1)
        #expect(try store.append(empty, to: synced, isLocal: false) == 3)
        #expect(try store.append(empty, to: local) == 2)
        #expect(try store.append(empty, to: synced) == 4)
        #expect(try store.append(empty, to: synced, isLocal: false) == 5)
        try store.flush()

        let announced = changes.values
        #expect(announced.map(\.id) == [synced, local])
        #expect(announced.map(\.kind) == [.appended(1...5), .appended(1...2)])
        #expect(announced.map(\.localUpdates) == [3, 2])
        #expect(announced.map(\.remoteUpdates) == [2, 0])

        let syncedMetadata = try store.metadata(synced)
        #expect(syncedMetadata.lastSequence == 5)
        #expect(syncedMetadata.lastLocalSequence == 4)
        #expect(syncedMetadata.logCount == 5)
        #expect(syncedMetadata.logBytes == 5 * (empty.count + 1))
        #expect(try store.unacknowledgedUpdates(synced).map(\.sequence) == [1, 2, 4])
        let localMetadata = try store.metadata(local)
        #expect(localMetadata.lastSequence == 2)
        #expect(localMetadata.lastLocalSequence == 0)
        #expect(localMetadata.logCount == 2)
        #expect(try store.hasUnacknowledgedWrites(synced))
        #expect(try !store.hasUnacknowledgedWrites(local))

        // Sequences continue after a restart of the store over the same storage.
        let storage = store.storage
        let reopened = DocumentStore(storage: storage, options: DocumentStoreTests.manualFlush)
        #expect(try reopened.append(empty, to: synced) == 6)
    }

    /// After an evict, appends are refused (not buffered and dropped), however many were
    /// made before; a restore makes them work again, continuing the sequence.
    @Test func appendsAfterAnEvictAreRefusedUntilARestore() throws {
        let store = DocumentStore(storage: .inMemory(), options: DocumentStoreTests.manualFlush)
        let id = DocumentID(rawValue: "doc")!
        try store.create(id)
        try store.append(empty, to: id)
        try store.append(empty, to: id)
        try store.flush()
        try store.acknowledge(id, through: 2)
        try store.evict(id)

        let refused = #expect(throws: AccordError.self) { try store.append(empty, to: id) }
        #expect(refused?.code == .documentEvicted)
        try store.flush()
        #expect(try store.metadata(id).lastSequence == 2)

        try store.restore(id, snapshot: empty)
        #expect(try store.append(empty, to: id) == 3)
        try store.flush()
        #expect(try store.metadata(id).logCount == 1)
    }

    @Test func appendingToAMissingDocumentIsNotFound() {
        let store = DocumentStore(storage: .inMemory(), options: DocumentStoreTests.manualFlush)
        let error = #expect(throws: AccordError.self) { try store.append(empty, to: DocumentID(rawValue: "nowhere")!) }
        #expect(error?.code == .documentNotFound)
    }
}

final class ChangeList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [DocumentChange] = []
    func append(_ change: DocumentChange) { lock.withLock { items.append(change) } }
    var values: [DocumentChange] { lock.withLock { items } }
}
