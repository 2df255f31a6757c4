import Foundation
import Testing
import AccordStore

extension BlobFixtures {
    /// Puts into `store` what the test writes into a FIFO at `path`, one piece at a
    /// time, so that the test can look at the store while the put is still running:
    /// after writing `n` pieces it waits until `whenWritten(n)` holds, then runs
    /// `check(n)`. Returns what the put stored.
    static func putThroughFIFO(
        _ store: BlobStore, at path: String, pieces: [[UInt8]],
        whenWritten: (Int) throws -> Bool, check: (Int) throws -> Void
    ) throws -> BlobInfo {
        #expect(mkfifo(path, 0o600) == 0)
        let result = ResultBox()
        let putter = Thread { result.set(Result { try store.put(contentsOfFile: path, referencedBy: "doc") }) }
        putter.start()
        // Opening blocks until the put opened the other end.
        let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        for (index, piece) in pieces.enumerated() {
            try writer.write(contentsOf: piece)
            try waitUntil { try whenWritten(index + 1) }
            try check(index + 1)
        }
        try writer.close()
        try waitUntil { result.value != nil }
        return try #require(result.value).get()
    }

    /// Polls `condition` every millisecond for up to 30 s.
    static func waitUntil(_ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(30)
        while try !condition() {
            guard Date() < deadline else { throw WaitTimedOut() }
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    struct WaitTimedOut: Error {}
}

/// The outcome of a put on another thread.
final class ResultBox: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `result` is touched only with `lock` held.
    private let lock = NSLock()
    private var result: Result<BlobInfo, any Error>?

    func set(_ value: Result<BlobInfo, any Error>) {
        lock.lock()
        defer { lock.unlock() }
        result = value
    }

    var value: Result<BlobInfo, any Error>? {
        lock.lock()
        defer { lock.unlock() }
        return result
    }
}

/// A memory adapter whose commits number `failingCommits` (counting from 1) throw, as a
/// full disk or a lost connection would. Used by one test at a time only.
final class FailingAdapter: ForwardingAdapter {
    private let failingCommits: Set<Int>
    private(set) var commits = 0

    init(failingCommits: Set<Int>) {
        self.failingCommits = failingCommits
        super.init()
    }

    struct InjectedFailure: Error {}

    override func commit(_ batch: [StorageOperation]) throws {
        commits += 1
        if failingCommits.contains(commits) { throw InjectedFailure() }
        try inner.commit(batch)
    }
}
