import Foundation
import Testing
import AccordCRDT
@testable import AccordStore
import AccordTesting

/// Small blobs kept in the storage (``BlobStore/Tuning/inlineLimit``), the batch put,
/// and the download writer: where content goes, how many commits it takes, and that a
/// wrong hash keeps nothing.
@Suite struct BlobSmallContentTests {
    static let inline = BlobStore.Tuning(inlineLimit: 16 * 1024)

    private func makeStore(_ tuning: BlobStore.Tuning = inline) throws -> (BlobStore, TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "accord-blob")
        let counter = CommitCounter(wrapping: try SQLiteStorageAdapter(path: directory.file("store.sqlite")))
        return (try BlobStore(storage: SerialStorage(counter), tuning: tuning), directory)
    }

    /// The batches committed so far.
    private func batches(_ store: BlobStore) throws -> [[StorageOperation]] {
        try store.storage.withAdapter { ($0 as? CommitCounter)?.batches ?? [] }
    }

    private func chunkLogs(_ store: BlobStore) throws -> [String] {
        try store.storage.withAdapter { try $0.logKeys(in: BlobFixtures.chunks) }
    }

    @Test func smallBlobsStayInTheStorageInOneCommitAndLargerOnesGetAFile() throws {
        let (store, directory) = try makeStore()
        _ = directory
        let small = BlobFixtures.randomBytes(10_000, seed: 1)
        let before = try batches(store).count
        let info = try store.put(small, contentType: "image/png", referencedBy: "d")
        #expect(try batches(store).count == before + 1, "content, index record and reference in one commit")
        #expect(try BlobFixtures.directoryNames(store).isEmpty)
        #expect(try chunkLogs(store).count == 1)
        #expect(try store.get(info.hash) == small)
        #expect(try store.blobs(referencedBy: "d").map(\.hash) == [info.hash])
        #expect(try store.contentReader(info.hash) == nil, "no content file to read")

        // At the limit: still inline; one byte more: a content file.
        let edge = BlobFixtures.randomBytes(16 * 1024, seed: 2)
        let edgeInfo = try store.put(edge)
        #expect(try BlobFixtures.directoryNames(store).isEmpty)
        let large = BlobFixtures.randomBytes(16 * 1024 + 1, seed: 3)
        let largeInfo = try store.put(large)
        #expect(try BlobFixtures.directoryNames(store) == [largeInfo.hash.hex])
        #expect(try store.get(edgeInfo.hash) == edge)
        #expect(try store.get(largeInfo.hash) == large)

        // A file put picks by the file's size too.
        let path = directory.file("small.bin")
        try Data(BlobFixtures.randomBytes(3000, seed: 4)).write(to: URL(fileURLWithPath: path))
        let fromFile = try store.put(contentsOfFile: path)
        #expect(try BlobFixtures.directoryNames(store) == [largeInfo.hash.hex])
        #expect(try store.get(fromFile.hash).count == 3000)

        // Collection removes unreferenced inline blobs with their chunks.
        let report = try store.collectGarbage()
        #expect(Set(report.removedBlobs.map(\.hash)) == [edgeInfo.hash, largeInfo.hash, fromFile.hash])
        #expect(try chunkLogs(store).count == 1)
        #expect(try store.get(info.hash) == small)
    }

    @Test func withoutAnInlineLimitEveryBlobGetsAFile() throws {
        let (store, directory) = try makeStore(BlobStore.Tuning())
        _ = directory
        let info = try store.put(Array("tiny".utf8))
        #expect(try BlobFixtures.directoryNames(store) == [info.hash.hex])
        let empty = try store.put([])
        #expect(try BlobFixtures.directoryNames(store).contains(empty.hash.hex))
        #expect(try chunkLogs(store).isEmpty)
    }

    @Test func anInlineLimitAboveTheChunkSizeIsRefused() throws {
        let error = #expect(throws: AccordError.self) {
            try BlobStore(storage: .inMemory(), tuning: BlobStore.Tuning(chunkSize: 4096, inlineLimit: 4097))
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test func putAllCommitsTheSmallBlobsTogetherWithTheCallersRecords() throws {
        let (store, directory) = try makeStore()
        _ = directory
        let category = StorageCategory("test.queue")
        let contents = (0..<50).map { BlobFixtures.randomBytes(5_000 + $0, seed: UInt64(10 + $0)) }
        var items = contents.map { BlobContent($0, contentType: "text/plain") }
        items.append(items[3])  // the same content twice is stored once
        let large = BlobFixtures.randomBytes(40_000, seed: 99)
        items.append(BlobContent(large))
        let before = try batches(store).count
        let infos = try store.putAll(
            items, referencedBy: "d", committingWith: [.put(category, key: "entry", value: [1])])
        // The large blob's own put (one commit), then one batch for the 50 small ones.
        #expect(try batches(store).count == before + 2)
        let batch = try #require(try batches(store).last)
        #expect(batch.contains(.put(category, key: "entry", value: [1])))
        #expect(infos.count == 52)
        #expect(infos[50].hash == infos[3].hash)
        for (index, content) in contents.enumerated() {
            #expect(try store.get(infos[index].hash) == content)
            #expect(infos[index].contentType == "text/plain")
        }
        #expect(try store.get(infos[51].hash) == large)
        #expect(try store.blobs(referencedBy: "d").count == 51)
        #expect(try store.documents(referencing: infos[7].hash) == ["d"])
        #expect(try chunkLogs(store).count == 50)
        #expect(try store.storage.withAdapter { try $0.read(category, key: "entry") } == [1])

        // Again: everything is stored already, only nothing new is written.
        let again = try store.putAll(Array(items.prefix(5)), referencedBy: "e")
        #expect(again.map(\.hash) == infos.prefix(5).map(\.hash))
        #expect(try chunkLogs(store).count == 50)
        #expect(try store.blobs(referencedBy: "e").count == 5)
    }

    @Test func putAllWithABadContentTypeStoresNothing() throws {
        let (store, directory) = try makeStore()
        _ = directory
        let items = [BlobContent([1, 2, 3]), BlobContent([4, 5], contentType: "bad\u{7}type")]
        let error = #expect(throws: AccordError.self) { try store.putAll(items, referencedBy: "d") }
        #expect(error?.code == .invalidArgument)
        #expect(try store.list().isEmpty)
        #expect(try chunkLogs(store).isEmpty)
    }

    /// The download writer: small content is held and stored inline, large content
    /// streams into a content file in pieces of any size, hashed once; a wrong hash or
    /// size keeps nothing either way.
    @Test(arguments: [10_000, 16 * 1024, 300_000, 3 << 20])
    func theWriterStoresWhatItWasFedOnlyUnderItsHash(size: Int) throws {
        let (store, directory) = try makeStore()
        _ = directory
        let content = BlobFixtures.randomBytes(size, seed: UInt64(size))
        var hasher = try SHA256Hasher()
        hasher.update(content)
        let hash = hasher.finish()
        func feed(_ writer: BlobWriter) throws {
            var offset = 0
            var step = 1
            while offset < content.count {
                // Odd piece sizes, as a network hands them over.
                let end = min(content.count, offset + step * 4093 % 70_000 + 1)
                try content[offset..<end].withUnsafeBytes { try writer.write($0) }
                offset = end
                step += 1
            }
        }
        let wrong = try BlobWriter(store: store)
        try feed(wrong)
        let mismatch = #expect(throws: AccordError.self) {
            try wrong.finish(expected: BlobHash(validatedBytes: [UInt8](repeating: 7, count: 32)), contentType: "a/b", reference: "d")
        }
        #expect(mismatch?.code == .blobHashMismatch)
        let short = try BlobWriter(store: store)
        try feed(short)
        let sizeError = #expect(throws: AccordError.self) {
            try short.finish(expected: hash, expectedSize: Int64(size + 1), contentType: "a/b", reference: "d")
        }
        #expect(sizeError?.code == .blobHashMismatch)
        #expect(try store.list().isEmpty)
        #expect(try BlobFixtures.directoryNames(store).isEmpty, "no upload file left")
        #expect(try chunkLogs(store).isEmpty)

        let writer = try BlobWriter(store: store)
        try feed(writer)
        let info = try writer.finish(expected: hash, expectedSize: Int64(size), contentType: "a/b", reference: "d")
        #expect(info.hash == hash)
        #expect(try store.get(hash) == content)
        #expect(try store.blobs(referencedBy: "d").map(\.hash) == [hash])
        let inFile = size > 16 * 1024
        #expect(try BlobFixtures.directoryNames(store) == (inFile ? [hash.hex] : []))
        #expect(try chunkLogs(store).count == (inFile ? 0 : 1))
    }

    /// Sealed files and chunk-only stores take pieces of the chunk size: the writer
    /// cuts what it is fed.
    @Test(arguments: [BlobBackend.sealed, .sqliteChunks, .memory])
    func theWriterCutsPiecesForStoresThatNeedChunks(backend: BlobBackend) throws {
        let (store, directory) = try backend.makeStore(tuning: BlobStore.Tuning(chunkSize: 4096, chunksPerBatch: 3))
        _ = directory
        let content = BlobFixtures.randomBytes(50_001, seed: 5)
        var hasher = try SHA256Hasher()
        hasher.update(content)
        let writer = try BlobWriter(store: store)
        for start in stride(from: 0, to: content.count, by: 3001) {
            try content[start..<min(content.count, start + 3001)].withUnsafeBytes { try writer.write($0) }
        }
        let info = try writer.finish(expected: hasher.finish(), contentType: "a/b", reference: nil)
        #expect(try store.get(info.hash) == content)
    }
}

/// Records every committed batch.
final class CommitCounter: ForwardingAdapter {
    private(set) var batches: [[StorageOperation]] = []

    init(wrapping inner: any StorageAdapter) { super.init(inner) }

    override func commit(_ batch: [StorageOperation]) throws {
        try inner.commit(batch)
        batches.append(batch)
    }
}
