import Foundation
import Testing
import AccordCRDT
@testable import AccordStore

/// The commit loop: while one commit is in flight (a PostgreSQL round trip and its WAL
/// flush, for a server), the next batch gathers, and everything appended meanwhile goes
/// in one next commit, not one per timer that fired.
@Suite struct DocumentCommitPipelineTests {
    let empty = Doc().encodeStateAsUpdate()

    @Test func appendsDuringACommitGoInOneNextCommit() throws {
        let adapter = GatedAdapter()
        var options = DocumentStore.Options()
        options.flushDelay = .milliseconds(2)
        options.compactionMaxEntries = 0
        let store = DocumentStore(storage: SerialStorage(adapter), options: options)
        let id = DocumentID(rawValue: "pipelined")!
        try store.create(id)
        let before = adapter.commits

        adapter.hold()
        try store.append(empty, to: id)
        // The timer's flush took that append and is now inside the held commit.
        try #require(wait { adapter.waiting == 1 })
        for _ in 0..<20 {
            try store.append(empty, to: id)
            usleep(3_000)  // longer than the flush delay: every append's timer fires
        }
        // Every timer has fired by now: a flush waits behind the held commit with the
        // buffer still to take, and says so, so appends meanwhile start no timer.
        usleep(50_000)
        #expect(store.withLock { store.flushScheduled && store.buffer.count == 20 })
        adapter.release()
        try #require(wait { adapter.commits == before + 2 })
        try store.flush()
        usleep(20_000)  // any stray timer's flush has run by now
        #expect(adapter.commits == before + 2, "the gathered appends took more than one commit")
        #expect(adapter.sizes.suffix(2) == [1, 20])
        #expect(try store.metadata(id).lastSequence == 21)
    }

    /// Whether `condition` held within 5 s.
    private func wait(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !condition() {
            guard Date() < deadline else { return false }
            usleep(1_000)
        }
        return true
    }
}

/// A memory adapter whose commits can be held at a gate, counting them and their sizes.
private final class GatedAdapter: StorageAdapter, @unchecked Sendable {
    // Invariant: `open`, `commitCount`, `waitingCount` and `batchSizes` only under `condition`.
    private let inner = MemoryStorageAdapter()
    private let condition = NSCondition()
    private var open = true
    private var commitCount = 0
    private var waitingCount = 0
    private var batchSizes: [Int] = []

    var commits: Int { condition.withLock { commitCount } }
    var waiting: Int { condition.withLock { waitingCount } }
    var sizes: [Int] { condition.withLock { batchSizes } }

    func hold() { condition.withLock { open = false } }

    func release() {
        condition.withLock {
            open = true
            condition.broadcast()
        }
    }

    func read(_ category: StorageCategory, key: String) throws -> [UInt8]? { try inner.read(category, key: key) }
    func keys(in category: StorageCategory) throws -> [String] { try inner.keys(in: category) }
    func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry] {
        try inner.readLog(category, key: key, after: after, limit: limit)
    }
    func lastSequence(_ category: StorageCategory, key: String) throws -> UInt64? { try inner.lastSequence(category, key: key) }
    func logKeys(in category: StorageCategory) throws -> [String] { try inner.logKeys(in: category) }
    func wipeAll() throws { try inner.wipeAll() }

    func commit(_ batch: [StorageOperation]) throws {
        condition.withLock {
            waitingCount += 1
            while !open { condition.wait() }
            waitingCount -= 1
        }
        try inner.commit(batch)
        let appends = batch.filter { if case .append = $0 { true } else { false } }.count
        condition.withLock {
            commitCount += 1
            batchSizes.append(appends)
        }
    }
}
