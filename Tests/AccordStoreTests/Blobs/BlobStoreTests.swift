import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

@Suite struct BlobStoreTests {
    @Test(arguments: BlobBackend.allCases)
    func putGetExistsListDelete(backend: BlobBackend) throws {
        let (store, directory) = try backend.makeStore(tuning: BlobFixtures.smallChunks)
        defer { withExtendedLifetime(directory) {} }
        // Sizes around chunk and batch boundaries (4096-byte chunks, 3 per batch).
        let sizes = [0, 1, 4095, 4096, 4097, 3 * 4096, 3 * 4096 + 1, 50_000]
        var stored: [BlobInfo] = []
        for (index, size) in sizes.enumerated() {
            let content = BlobFixtures.randomBytes(size, seed: UInt64(index))
            let info = try store.put(content, contentType: "application/x-test-\(index)")
            #expect(info.size == Int64(size))
            #expect(info.contentType == "application/x-test-\(index)")
            #expect(info.created == BlobFixtures.fixedDate)
            #expect(try store.exists(info.hash))
            #expect(try store.info(info.hash) == info)
            #expect(try store.get(info.hash) == content, "size \(size)")
            stored.append(info)
        }
        #expect(try store.list() == stored.sorted { $0.hash < $1.hash })

        let gone = stored[3]
        try store.delete(gone.hash)
        #expect(try !store.exists(gone.hash))
        #expect(try store.info(gone.hash) == nil)
        #expect(try store.list().count == sizes.count - 1)
        #expect(try store.get(stored[4].hash).count == sizes[4])
        // Its content went with it (chunks: the empty blob has none; files: one each).
        let copies = store.directory == nil ? sizes.filter { $0 > 0 }.count : sizes.count
        #expect(try BlobFixtures.storedCopies(store) == copies - 1)
    }

    @Test(arguments: BlobBackend.allCases)
    func sameContentIsStoredOnce(backend: BlobBackend) throws {
        let clock = ManualClock(BlobFixtures.fixedDate)
        let (store, directory) = try backend.makeStore(tuning: BlobFixtures.smallChunks, now: clock.read)
        defer { withExtendedLifetime(directory) {} }
        let content = BlobFixtures.randomBytes(20_000, seed: 7)
        let first = try store.put(content, contentType: "image/png")
        clock.advance(by: 60)
        let second = try store.put(content, contentType: "text/plain")
        // The first put's content type and time stay.
        #expect(second == first)
        #expect(try store.list() == [first])
        // One copy (a chunk log or a content file) and one index record: the second copy
        // was dropped (chunks: it spanned several batches, so they had been committed
        // before it was found equal; files: its upload file was written in full).
        let keys = try store.storage.withAdapter { adapter in try adapter.keys(in: BlobFixtures.index) }
        #expect(try BlobFixtures.storedCopies(store) == 1)
        #expect(keys == [first.hash.hex])
        #expect(try store.get(first.hash) == content)
    }

    @Test(arguments: BlobBackend.allCases)
    func aTamperedChunkIsStorageCorruptOnRead(backend: BlobBackend) throws {
        let (store, directory) = try backend.makeStore(tuning: BlobFixtures.smallChunks)
        defer { withExtendedLifetime(directory) {} }
        let info = try store.put(BlobFixtures.randomBytes(10_000, seed: 3))
        // Same length, one bit flipped (in the second chunk): only the SHA-256 (or the
        // seal) can tell.
        try BlobFixtures.flipStoredByte(store, info.hash, at: 4096 + 100)
        let error = #expect(throws: AccordError.self) { try store.get(info.hash) }
        #expect(error?.code == .storageCorrupt)
        #expect(error?.details["blob"] == info.hash.hex)
        #expect(error?.message.contains(info.hash.hex) == true)
        #expect(throws: AccordError.self) { try store.forEachChunk(of: info.hash) { _ in } }
    }

    /// A put of content already stored does not re-read the stored copy; deleting the
    /// damaged copy first lets the same content be stored again.
    @Test func aDamagedCopyIsReplacedByDeleteThenPut() throws {
        let store = try BlobStore(storage: .inMemory(), tuning: BlobFixtures.smallChunks)
        let content = BlobFixtures.randomBytes(9_000, seed: 8)
        let info = try store.put(content)
        try BlobFixtures.tamperChunk(store.storage, sequence: 1) { $0.map { ~$0 } }
        try store.put(content)
        expectCode(.storageCorrupt) { _ = try store.get(info.hash) }
        try store.delete(info.hash)
        #expect(try store.put(content).hash == info.hash)
        #expect(try store.get(info.hash) == content)
    }

    @Test(arguments: BlobBackend.allCases)
    func truncatedOrMissingChunksAreStorageCorrupt(backend: BlobBackend) throws {
        let (store, directory) = try backend.makeStore(tuning: BlobFixtures.smallChunks)
        defer { withExtendedLifetime(directory) {} }
        let info = try store.put(BlobFixtures.randomBytes(10_000, seed: 4))
        try BlobFixtures.truncateStored(store, info.hash)
        expectCode(.storageCorrupt) { _ = try store.get(info.hash) }

        let other = try store.put(BlobFixtures.randomBytes(10_000, seed: 5))
        try BlobFixtures.dropStoredContent(store, other.hash)
        let error = #expect(throws: AccordError.self) { try store.get(other.hash) }
        #expect(error?.code == .storageCorrupt)
        #expect(error?.details["blob"] == other.hash.hex)
    }

    @Test(arguments: [
        [UInt8](), [2], [1] + [UInt8](repeating: 0, count: 37), [1] + [UInt8](repeating: 0, count: 39),
    ])
    func aDamagedIndexRecordIsStorageCorrupt(record: [UInt8]) throws {
        let store = try BlobStore(storage: .inMemory())
        let info = try store.put(Array("hello".utf8))
        try store.storage.withAdapter { adapter in
            try adapter.commit([.put(BlobFixtures.index, key: info.hash.hex, value: record)])
        }
        expectCode(.storageCorrupt) { _ = try store.get(info.hash) }
        expectCode(.storageCorrupt) { _ = try store.info(info.hash) }
        expectCode(.storageCorrupt) { _ = try store.list() }
    }

    @Test(arguments: BlobBackend.allCases)
    func missingBlobIsBlobNotFound(backend: BlobBackend) throws {
        let (store, directory) = try backend.makeStore()
        defer { withExtendedLifetime(directory) {} }
        let absent = try BlobHash(hex: String(repeating: "ab", count: 32))
        for call in [
            { _ = try store.get(absent) },
            { try store.delete(absent) },
            { _ = try store.forEachChunk(of: absent) { _ in } },
            { try store.addReference(absent, document: "doc") },
        ] as [() throws -> Void] {
            let error = #expect(throws: AccordError.self) { try call() }
            #expect(error?.code == .blobNotFound)
            #expect(error?.details["blob"] == absent.hex)
        }
        #expect(try !store.exists(absent))
        #expect(try store.info(absent) == nil)
        #expect(try store.removeReference(absent, document: "doc") == false)
    }

    @Test(arguments: ["", "text/\u{7}bell", "text/plain\n", "image/pngé", String(repeating: "a", count: 256)])
    func badContentTypeIsInvalidArgumentAndStoresNothing(contentType: String) throws {
        let store = try BlobStore(storage: .inMemory())
        let error = #expect(throws: AccordError.self) { try store.put([1, 2, 3], contentType: contentType) }
        #expect(error?.code == .invalidArgument)
        #expect(try store.list().isEmpty)
        #expect(try store.storage.withAdapter { try $0.logKeys(in: BlobFixtures.chunks) }.isEmpty)
    }

    @Test func longestContentTypeIsKept() throws {
        let store = try BlobStore(storage: .inMemory())
        let type = "application/" + String(repeating: "x", count: 255 - 12)
        let info = try store.put([1], contentType: type)
        #expect(try store.info(info.hash)?.contentType == type)
    }

    @Test(arguments: [(0, 8), (4095, 8), (16 << 20 + 1, 8), (1 << 20, 0), (1 << 20, 1025)])
    func badTuningIsInvalidArgument(chunkSize: Int, chunksPerBatch: Int) {
        let tuning = BlobStore.Tuning(chunkSize: chunkSize, chunksPerBatch: chunksPerBatch)
        expectCode(.invalidArgument) { _ = try BlobStore(storage: .inMemory(), tuning: tuning) }
    }

    /// Blobs written with one chunk size read back under another: the size is in the
    /// index record (chunks) or the file header (sealed files), not in the store's tuning.
    @Test(arguments: [BlobBackend.sqliteChunks, .sqlite, .sealed])
    func chunkSizeIsPerBlob(backend: BlobBackend) throws {
        let directory = try TemporaryDirectory()
        let key = try SealingKey.generate()
        let content = BlobFixtures.randomBytes(30_000, seed: 9)
        let hash = try BlobStore(
            storage: SerialStorage(try backend.makeAdapter(in: directory, key: key)), tuning: BlobFixtures.smallChunks
        ).put(content).hash
        let reopened = try BlobStore(storage: SerialStorage(try backend.makeAdapter(in: directory, key: key)))
        #expect(try reopened.get(hash) == content)
    }

    @Test func forEachChunkDeliversTheContentInOrderAndRethrowsHandlerErrors() throws {
        let store = try BlobStore(storage: .inMemory(), tuning: BlobFixtures.smallChunks)
        let content = BlobFixtures.randomBytes(20_000, seed: 11)
        let info = try store.put(content)
        var received: [[UInt8]] = []
        #expect(try store.forEachChunk(of: info.hash) { received.append($0) } == info)
        #expect(received.map(\.count) == [4096, 4096, 4096, 4096, 3616])
        #expect(Array(received.joined()) == content)

        struct Stop: Error {}
        var calls = 0
        #expect(throws: Stop.self) {
            try store.forEachChunk(of: info.hash) { _ in
                calls += 1
                if calls == 2 { throw Stop() }
            }
        }
        #expect(calls == 2)
    }

    @Test func wipeAllRemovesBlobs() throws {
        let store = try BlobStore(storage: .inMemory())
        let info = try store.put([1, 2, 3])
        try store.storage.withAdapter { try $0.wipeAll() }
        #expect(try !store.exists(info.hash))
        #expect(try store.list().isEmpty)
    }
}
