import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// The stores every blob test runs on: chunks in memory, content files beside a
/// SQLite database (WAL, synchronous=FULL, as apps use it), chunks inside SQLite (the
/// layout before content files, still read), and sealed content files.
enum BlobBackend: String, CaseIterable, Sendable {
    case memory
    case sqlite
    case sqliteChunks
    case sealed

    /// A fresh store; the directory (nil for memory) must outlive it.
    func makeStore(
        tuning: BlobStore.Tuning = .init(), now: @escaping @Sendable () -> Date = { BlobFixtures.fixedDate }
    ) throws -> (BlobStore, TemporaryDirectory?) {
        if self == .memory { return (try BlobStore(storage: .inMemory(), tuning: tuning, now: now), nil) }
        let directory = try TemporaryDirectory(prefix: "accord-blob")
        return (try BlobStore(storage: SerialStorage(try makeAdapter(in: directory)), tuning: tuning, now: now), directory)
    }

    /// The adapter of a SQLite backend at `store.sqlite` in `directory`.
    func makeAdapter(in directory: TemporaryDirectory, key: SealingKey? = nil) throws -> any StorageAdapter {
        let path = directory.file("store.sqlite")
        switch self {
        case .memory: return MemoryStorageAdapter()
        case .sqlite: return try SQLiteStorageAdapter(path: path)
        case .sqliteChunks: return try SQLiteStorageAdapter(path: path, blobFiles: .inDatabase)
        case .sealed:
            return SealedStorageAdapter(wrapping: try SQLiteStorageAdapter(path: path), key: try key ?? SealingKey.generate())
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

    /// The content file of `hash`, when the store keeps content in files.
    static func contentFile(_ store: BlobStore, _ hash: BlobHash) -> String? {
        store.directory.map { "\($0.path)/\(hash.hex)" }
    }

    /// The names in the store's blob directory (none without one, or before any put).
    static func directoryNames(_ store: BlobStore) throws -> [String] {
        guard let path = store.directory?.path, FileManager.default.fileExists(atPath: path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    /// Copies of content on the storage: chunk logs plus files in the blob directory.
    static func storedCopies(_ store: BlobStore) throws -> Int {
        try store.storage.withAdapter { try $0.logKeys(in: chunks) }.count + directoryNames(store).count
    }

    /// Changes the stored content of `hash` as damage on disk would, keeping its length:
    /// the byte at `offset` of the content file (past the header of a sealed one), or of
    /// the chunks.
    static func flipStoredByte(_ store: BlobStore, _ hash: BlobHash, at offset: Int) throws {
        if let file = contentFile(store, hash), FileManager.default.fileExists(atPath: file) {
            var bytes = try contents(file)
            let position = min(offset + (store.directory?.isSealed == true ? 29 : 0), bytes.count - 1)
            bytes[position] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            return
        }
        let chunkSize = store.tuning.chunkSize
        try tamperChunk(store.storage, sequence: UInt64(offset / chunkSize + 1)) { bytes in
            var bytes = bytes
            bytes[offset % chunkSize] ^= 0x01
            return bytes
        }
    }

    /// Drops the last byte of the stored content (the first chunk, for chunks).
    static func truncateStored(_ store: BlobStore, _ hash: BlobHash) throws {
        if let file = contentFile(store, hash), FileManager.default.fileExists(atPath: file) {
            try Data(try contents(file).dropLast()).write(to: URL(fileURLWithPath: file))
        } else {
            try tamperChunk(store.storage, sequence: 1) { Array($0.dropLast()) }
        }
    }

    /// Removes the stored content but the first chunk (all of a content file).
    static func dropStoredContent(_ store: BlobStore, _ hash: BlobHash) throws {
        if let file = contentFile(store, hash), FileManager.default.fileExists(atPath: file) {
            try FileManager.default.removeItem(atPath: file)
            return
        }
        try store.storage.withAdapter { adapter in
            for key in try adapter.logKeys(in: chunks) {
                try adapter.commit([.truncateLog(chunks, key: key, through: 1)])
            }
        }
    }

    /// Every regular file under `path` whose bytes contain `marker`, to prove what
    /// reached the disk (or did not).
    static func filesContaining(_ marker: [UInt8], under path: String) throws -> [String] {
        var found: [String] = []
        guard let walker = FileManager.default.enumerator(atPath: path) else { return [] }
        while let name = walker.nextObject() as? String {
            let file = "\(path)/\(name)"
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue else {
                continue
            }
            let bytes = try contents(file)
            if bytes.count >= marker.count,
                (0...(bytes.count - marker.count)).contains(where: { bytes[$0..<$0 + marker.count].elementsEqual(marker) })
            {
                found.append(name)
            }
        }
        return found
    }

    /// Content made of `marker` repeated, `count` bytes long.
    static func marked(_ marker: [UInt8], count: Int) -> [UInt8] {
        (0..<count).map { marker[$0 % marker.count] }
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
