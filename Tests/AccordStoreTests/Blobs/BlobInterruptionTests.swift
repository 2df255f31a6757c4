import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// Puts that fail or race: whatever happens, no half-stored blob becomes visible and
/// no chunks stay behind once collected.
@Suite struct BlobInterruptionTests {
    /// A put whose third commit fails removes the chunks its first two batches wrote.
    @Test func aPutFailingHalfwayRemovesItsChunks() throws {
        let adapter = FailingAdapter(failingCommits: [3])
        let store = try BlobStore(storage: SerialStorage(adapter), tuning: BlobFixtures.smallChunks)
        // 10 chunks in batches of 3: commits 1 and 2 hold chunks, commit 3 fails.
        let error = #expect(throws: AccordError.self) { try store.put(BlobFixtures.randomBytes(40_000, seed: 1)) }
        #expect(error?.code == .storageError)
        let commits = try store.storage.withAdapter { ($0 as? FailingAdapter)?.commits }
        #expect(commits == 4, "the cleanup commit ran")
        #expect(try store.storage.withAdapter { try $0.logKeys(in: BlobFixtures.chunks) }.isEmpty)
        #expect(try store.list().isEmpty)
    }

    /// When even the cleanup fails (the storage went away), the chunks stay as orphans
    /// and the next collection removes them.
    @Test func chunksLeftByAFailedCleanupAreCollectedLater() throws {
        let adapter = FailingAdapter(failingCommits: [3, 4])
        let store = try BlobStore(storage: SerialStorage(adapter), tuning: BlobFixtures.smallChunks)
        let kept = try store.put(Array("kept".utf8), referencedBy: "doc")
        #expect(throws: AccordError.self) { try store.put(BlobFixtures.randomBytes(40_000, seed: 1)) }
        #expect(try store.storage.withAdapter { try $0.logKeys(in: BlobFixtures.chunks) }.count == 2)
        #expect(try store.list() == [kept])
        let report = try store.collectGarbage()
        #expect(report.removedOrphanUploads == 1)
        #expect(report.removedBlobs.isEmpty)
        #expect(try store.get(kept.hash) == Array("kept".utf8))
    }

    /// Collections running while a multi-batch put streams in must not take its chunks
    /// for orphans.
    @Test func collectionLeavesARunningPutAlone() async throws {
        let store = try BlobStore(storage: .inMemory(), tuning: .init(chunkSize: 4096, chunksPerBatch: 1))
        let content = BlobFixtures.randomBytes(4096 * 200, seed: 2)
        let done = Flag()
        let put = Task.detached {
            defer { done.set() }
            return try store.put(content, referencedBy: "doc")
        }
        var collections = 0
        while !done.isSet {
            _ = try store.collectGarbage()
            collections += 1
            await Task.yield()
        }
        let info = try await put.value
        #expect(collections > 0)
        #expect(try store.get(info.hash) == content)
        #expect(try store.collectGarbage().removedOrphanUploads == 0)
    }
}

/// A flag one task sets and another polls.
final class Flag: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `value` is touched only with `lock` held.
    private let lock = NSLock()
    private var value = false

    func set() {
        lock.lock()
        defer { lock.unlock() }
        value = true
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// A memory adapter whose commits number `failingCommits` (counting from 1) throw, as a
/// full disk or a lost connection would. Used by one test at a time only.
final class FailingAdapter: StorageAdapter {
    private let inner = MemoryStorageAdapter()
    private let failingCommits: Set<Int>
    private(set) var commits = 0

    init(failingCommits: Set<Int>) { self.failingCommits = failingCommits }

    struct InjectedFailure: Error {}

    func commit(_ batch: [StorageOperation]) throws {
        commits += 1
        if failingCommits.contains(commits) { throw InjectedFailure() }
        try inner.commit(batch)
    }

    func read(_ category: StorageCategory, key: String) throws -> [UInt8]? { try inner.read(category, key: key) }
    func keys(in category: StorageCategory) throws -> [String] { try inner.keys(in: category) }
    func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry] {
        try inner.readLog(category, key: key, after: after, limit: limit)
    }
    func lastSequence(_ category: StorageCategory, key: String) throws -> UInt64? {
        try inner.lastSequence(category, key: key)
    }
    func logKeys(in category: StorageCategory) throws -> [String] { try inner.logKeys(in: category) }
    func wipeAll() throws { try inner.wipeAll() }
}
