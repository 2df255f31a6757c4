import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// `adopt(fileAt:hash:contentType:referencedBy:)` (a server's finished upload),
/// `contentReader(_:)` and the keep predicate of `collectGarbage`, on every backend.
struct BlobAdoptTests {
    static func file(_ content: [UInt8], in directory: TemporaryDirectory, _ name: String) -> String {
        let path = directory.file(name)
        FileManager.default.createFile(atPath: path, contents: Data(content))
        return path
    }

    @Test(arguments: BlobBackend.allCases)
    func adoptingStoresTheFileWithItsReferenceAndTakesItOver(backend: BlobBackend) throws {
        let (store, keep) = try backend.makeStore()
        let scratch = try TemporaryDirectory()
        _ = keep
        let content = BlobFixtures.randomBytes(2_500_000, seed: 61)
        let hash = try store.put(content).hash
        try store.delete(hash)
        let source = Self.file(content, in: scratch, "upload.part")
        let first = try store.adopt(fileAt: source, hash: hash, contentType: "image/png", referencedBy: "doc")
        #expect(first.created)
        #expect(first.info.size == Int64(content.count) && first.info.contentType == "image/png")
        #expect(!FileManager.default.fileExists(atPath: source))
        #expect(try store.get(hash) == content)
        #expect(try store.blobs(referencedBy: "doc").map(\.hash) == [hash])
        // The same content again: only the reference is added, the file still taken over.
        let again = Self.file(content, in: scratch, "again.part")
        let second = try store.adopt(fileAt: again, hash: hash, contentType: "text/plain", referencedBy: "other")
        #expect(!second.created)
        #expect(second.info.contentType == "image/png")
        #expect(!FileManager.default.fileExists(atPath: again))
        #expect(try store.documents(referencing: hash) == ["doc", "other"])
    }

    @Test(arguments: [BlobBackend.memory, .sqliteChunks, .sealed])
    func withoutAPlainDirectoryAWrongHashKeepsNothing(backend: BlobBackend) throws {
        let (store, keep) = try backend.makeStore()
        _ = keep
        let scratch = try TemporaryDirectory()
        let claimed = try store.put([1, 2, 3]).hash
        try store.delete(claimed)
        let source = Self.file(BlobFixtures.randomBytes(10_000, seed: 62), in: scratch, "wrong.part")
        #expect(throws: AccordError.self) {
            try store.adopt(fileAt: source, hash: claimed, contentType: "a/b", referencedBy: "doc")
        }
        #expect(try !store.exists(claimed))
        #expect(try store.blobs(referencedBy: "doc").isEmpty)
    }

    @Test func aContentReaderReadsRangesAndVerifies() throws {
        let (store, keep) = try BlobBackend.sqlite.makeStore()
        _ = keep
        let content = BlobFixtures.randomBytes(1_000_001, seed: 63)
        let hash = try store.put(content).hash
        let reader = try #require(try store.contentReader(hash))
        try reader.verify()
        var buffer = [UInt8](repeating: 0, count: 100)
        let count = try buffer.withUnsafeMutableBytes { try reader.read(at: 999_950, into: $0) }
        #expect(count == 51)
        #expect(Array(buffer[..<count]) == Array(content.suffix(51)))
        // Chunks and sealed files have no plain file to read at random.
        let (memory, _) = try BlobBackend.memory.makeStore()
        #expect(try memory.contentReader(try memory.put(content).hash) == nil)
    }

    @Test func theKeepPredicateSparesUnreferencedBlobsUnderTheLock() throws {
        let (store, keep) = try BlobBackend.sqlite.makeStore()
        _ = keep
        let spared = try store.put([1]).hash
        let removed = try store.put([2]).hash
        let referenced = try store.put([3], referencedBy: "doc").hash
        var asked: [BlobHash] = []
        let report = try store.collectGarbage { info, _ in
            asked.append(info.hash)
            return info.hash == spared
        }
        #expect(Set(asked) == [spared, removed])
        #expect(report.removedBlobs.map(\.hash) == [removed])
        #expect(try store.exists(spared) && store.exists(referenced) && !store.exists(removed))
    }
}
