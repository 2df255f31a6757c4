import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// The two adapters every blob test runs on: the in-memory one and SQLite in a
/// temporary file (WAL, synchronous=FULL, as apps use it).
enum BlobBackend: String, CaseIterable, Sendable {
    case memory
    case sqlite

    /// A fresh store; the directory (nil for memory) must outlive it.
    func makeStore(
        tuning: BlobStore.Tuning = .init(), now: @escaping @Sendable () -> Date = { BlobFixtures.fixedDate }
    ) throws -> (BlobStore, TemporaryDirectory?) {
        switch self {
        case .memory:
            return (try BlobStore(storage: .inMemory(), tuning: tuning, now: now), nil)
        case .sqlite:
            let directory = try TemporaryDirectory(prefix: "accord-blob")
            let storage = try SerialStorage(path: directory.file("store.sqlite"))
            return (try BlobStore(storage: storage, tuning: tuning, now: now), directory)
        }
    }
}

enum BlobFixtures {
    /// A fixed clock: 2026-01-02T03:04:05.678Z.
    static let fixedDate = Date(timeIntervalSince1970: 1_767_323_045.678)

    /// Small chunks, so a few KiB already span several chunks and batches.
    static let smallChunks = BlobStore.Tuning(chunkSize: 4096, chunksPerBatch: 3)

    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static let chunks = StorageCategory("blob.chunks")
    static let index = StorageCategory("blob.index")

    /// Replaces chunk `sequence` of every chunk log with `transform(old bytes)`,
    /// straight through the adapter, as damage on disk would.
    static func tamperChunk(
        _ storage: SerialStorage, sequence: UInt64, _ transform: @escaping ([UInt8]) -> [UInt8]
    ) throws {
        try storage.withAdapter { adapter in
            for key in try adapter.logKeys(in: chunks) {
                let entries = try adapter.readLog(chunks, key: key)
                var batch: [StorageOperation] = [.deleteLog(chunks, key: key)]
                for entry in entries {
                    let value = entry.sequence == sequence ? transform(entry.value) : entry.value
                    batch.append(.append(chunks, key: key, sequence: entry.sequence, value: value))
                }
                try adapter.commit(batch)
            }
        }
    }

    /// Whole file contents, for small files in tests.
    static func contents(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

/// Expects `body` to throw an ``AccordError`` with `code`.
func expectCode(
    _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) {
    let error = #expect(throws: AccordError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code == code, sourceLocation: sourceLocation)
}
