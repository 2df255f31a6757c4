import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// Damaged or missing records are STORAGE_CORRUPT naming the document, and a failed
/// load writes nothing.
@Suite struct DocumentCorruptionTests {
    let id = DocumentID(rawValue: "victim")!

    /// A store holding a document with a snapshot and a three-entry log.
    func makeStore() throws -> (DocumentStore, SerialStorage) {
        let storage = SerialStorage.inMemory()
        let store = DocumentStore(storage: storage, options: DocumentStoreTests.manualFlush)
        let opened = try store.open(id, createIfMissing: true)
        try opened.doc.getText("t").insert(0, "snapshot")
        try opened.close()
        try store.compact(id)
        let reopened = try store.open(id)
        for word in [" one", " two", " three"] {
            let text = try reopened.doc.getText("t")
            try text.insert(text.length, word)
        }
        try reopened.close()
        return (store, storage)
    }

    /// Every record and log entry, to compare before and after.
    func dump(_ storage: SerialStorage) throws -> [String: [UInt8]] {
        try storage.withAdapter { adapter in
            var all: [String: [UInt8]] = [:]
            for category in ["doc.meta", "doc.snapshot"] {
                for key in try adapter.keys(in: StorageCategory(category)) {
                    all["\(category)/\(key)"] = try adapter.read(StorageCategory(category), key: key)
                }
            }
            for category in ["doc.log", "doc.outbound"] {
                for key in try adapter.logKeys(in: StorageCategory(category)) {
                    for entry in try adapter.readLog(StorageCategory(category), key: key) {
                        all["\(category)/\(key)/\(entry.sequence)"] = entry.value
                    }
                }
            }
            return all
        }
    }

    func expectCorruptLoad(_ damage: (any StorageAdapter) throws -> Void, _ comment: Comment) throws {
        let (_, storage) = try makeStore()
        try storage.withAdapter(damage)
        let before = try dump(storage)
        // A fresh store over the damaged storage: nothing cached.
        let store = DocumentStore(storage: storage, options: DocumentStoreTests.manualFlush)
        let error = #expect(throws: AccordError.self, comment) { try store.load(id) }
        #expect(error?.code == .storageCorrupt, comment)
        #expect(error?.details["document"] == id.rawValue, comment)
        #expect(try dump(storage) == before, comment)
        // Compaction refuses too, rather than folding a damaged log into a snapshot.
        #expect(throws: AccordError.self, comment) { try store.compact(id) }
        #expect(try dump(storage) == before, comment)
    }

    @Test func loadsCleanlyWhenNothingIsDamaged() throws {
        let (store, _) = try makeStore()
        #expect(try store.load(id).getText("t").string == "snapshot one two three")
    }

    @Test func aMissingLogEntryIsCorrupt() throws {
        try expectCorruptLoad({ try $0.commit([.truncateLog(StorageCategory("doc.log"), key: "victim", through: 2)]) }, "missing entry")
    }

    @Test func aMissingSnapshotIsCorrupt() throws {
        try expectCorruptLoad({ try $0.commit([.delete(StorageCategory("doc.snapshot"), key: "victim")]) }, "missing snapshot")
    }

    @Test func aGarbledSnapshotIsCorrupt() throws {
        try expectCorruptLoad({ adapter in
            var bytes = try adapter.read(StorageCategory("doc.snapshot"), key: "victim") ?? []
            bytes[bytes.count / 2] ^= 0xFF
            bytes[1] = 0xFF
            try adapter.commit([.put(StorageCategory("doc.snapshot"), key: "victim", value: bytes)])
        }, "garbled snapshot")
    }

    @Test func aGarbledLogEntryIsCorrupt() throws {
        try expectCorruptLoad({ adapter in
            let log = try adapter.readLog(StorageCategory("doc.log"), key: "victim")
            // Replace the last entry by one of the same length that does not decode.
            var rewritten: [StorageOperation] = [.deleteLog(StorageCategory("doc.log"), key: "victim")]
            for (index, entry) in log.enumerated() {
                let value = index == log.count - 1 ? [UInt8](repeating: 0xFF, count: entry.value.count) : entry.value
                rewritten.append(.append(StorageCategory("doc.log"), key: "victim", sequence: entry.sequence, value: value))
            }
            try adapter.commit(rewritten)
        }, "garbled log entry")
    }

    @Test func unreadableMetadataIsCorrupt() throws {
        try expectCorruptLoad({ try $0.commit([.put(StorageCategory("doc.meta"), key: "victim", value: Array("{\"version\":1".utf8))]) }, "metadata")
    }

    @Test func changesAreAnnouncedOnlyOnceDurable() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("store.db")
        let store = try DocumentStore(path: path, options: DocumentStoreTests.manualFlush)
        try store.create(id)
        // Each announcement checks, through a second connection, that the change is on disk.
        let seen = LockedList()
        let subscription = store.observeChanges { change in
            guard case .appended(let range) = change.kind else { return }
            let durable = (try? SQLiteStorageAdapter(path: path).readLog(StorageCategory("doc.log"), key: change.id.rawValue))?
                .map(\.sequence) ?? []
            seen.append(Array(range).allSatisfy(durable.contains))
        }
        defer { subscription.cancel() }
        let doc = Doc()
        var updates: [[UInt8]] = []
        doc.onUpdate { update, _ in updates.append(update) }
        try doc.getText("t").insert(0, "ab")
        try doc.getText("t").insert(2, "cd")
        for update in updates { try store.append(update, to: id) }
        #expect(seen.values.isEmpty)
        try store.flush()
        #expect(seen.values == [true])
    }
}

final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Bool] = []
    func append(_ value: Bool) { lock.withLock { items.append(value) } }
    var values: [Bool] { lock.withLock { items } }
}
