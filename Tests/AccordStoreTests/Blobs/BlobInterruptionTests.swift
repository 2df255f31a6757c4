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

    /// Collections between the batches of a running put must not take its chunks for
    /// orphans. The put reads from a FIFO that the test feeds one chunk at a time,
    /// collecting garbage after each chunk was committed.
    @Test func collectionLeavesARunningPutAlone() throws {
        let directory = try TemporaryDirectory()
        // 4096-byte chunks: one FIFO write (PIPE_BUF on Linux) is one chunk and one batch.
        let store = try BlobStore(storage: .inMemory(), tuning: .init(chunkSize: 4096, chunksPerBatch: 1))
        let pieces = (0..<5).map { BlobFixtures.randomBytes(4096, seed: UInt64($0)) }
        let info = try BlobFixtures.putThroughFIFO(
            store, at: directory.file("fifo"), pieces: pieces,
            whenWritten: { written in try Self.committedChunks(store) == UInt64(written) },
            check: { written in
                let report = try store.collectGarbage()
                #expect(report.removedOrphanUploads == 0, "after chunk \(written)")
            })
        #expect(try store.get(info.hash) == Array(pieces.joined()))
    }

    /// The last sequence of the only chunk log (0 when there is none).
    private static func committedChunks(_ store: BlobStore) throws -> UInt64 {
        try store.storage.withAdapter { adapter in
            guard let key = try adapter.logKeys(in: BlobFixtures.chunks).first else { return 0 }
            return try adapter.lastSequence(BlobFixtures.chunks, key: key) ?? 0
        }
    }
}
