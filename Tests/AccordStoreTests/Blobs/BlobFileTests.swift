import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

@Suite struct BlobFileTests {
    @Test(arguments: BlobBackend.allCases)
    func putFromFileAndExportToFile(backend: BlobBackend) throws {
        let (store, storeDirectory) = try backend.makeStore(tuning: BlobFixtures.smallChunks)
        defer { withExtendedLifetime(storeDirectory) {} }
        let directory = try TemporaryDirectory()
        for (index, size) in [0, 1, 4096, 12_289, 40_000].enumerated() {
            let content = BlobFixtures.randomBytes(size, seed: UInt64(100 + index))
            let source = directory.file("in-\(index)")
            try Data(content).write(to: URL(fileURLWithPath: source))
            let info = try store.put(contentsOfFile: source, contentType: "video/mp4")
            #expect(info.size == Int64(size))
            #expect(info.contentType == "video/mp4")
            #expect(try store.get(info.hash) == content)
            #expect(info.hash == (try store.put(content)).hash, "a file and bytes give the same hash")

            let destination = directory.file("out-\(index)")
            #expect(try store.export(info.hash, toFile: destination) == info)
            #expect(try BlobFixtures.contents(destination) == content)
        }
        // Export replaces an existing file and leaves no temporary file behind.
        let hash = try store.put(Array("new".utf8)).hash
        try store.export(hash, toFile: directory.file("out-0"))
        #expect(try BlobFixtures.contents(directory.file("out-0")) == Array("new".utf8))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.filter { $0.hasSuffix(".accord-tmp") }.isEmpty)
    }

    @Test func anUnreadableSourceIsIOErrorAndStoresNothing() throws {
        let store = try BlobStore(storage: .inMemory())
        let directory = try TemporaryDirectory()
        let error = #expect(throws: AccordError.self) {
            try store.put(contentsOfFile: directory.file("does-not-exist"))
        }
        #expect(error?.code == .ioError)
        #expect(error?.details["path"] == directory.file("does-not-exist"))
        #if os(Linux)
        // Permissions do not stop root, so only check them when they apply.
        let locked = directory.file("locked")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: locked))
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: locked)
        if getuid() != 0 {
            expectCode(.ioError) { try store.put(contentsOfFile: locked) }
        }
        #endif
        #expect(try store.list().isEmpty)
    }

    @Test func aCorruptBlobLeavesNothingAtTheDestination() throws {
        let store = try BlobStore(storage: .inMemory(), tuning: BlobFixtures.smallChunks)
        let directory = try TemporaryDirectory()
        let info = try store.put(BlobFixtures.randomBytes(20_000, seed: 1))
        try BlobFixtures.tamperChunk(store.storage, sequence: 5) { bytes in bytes.map { $0 ^ 0xff } }
        let destination = directory.file("out")
        expectCode(.storageCorrupt) { try store.export(info.hash, toFile: destination) }
        #expect(!FileManager.default.fileExists(atPath: destination))
        // An existing file is left as it was.
        try Data([9]).write(to: URL(fileURLWithPath: destination))
        expectCode(.storageCorrupt) { try store.export(info.hash, toFile: destination) }
        #expect(try BlobFixtures.contents(destination) == [9])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out"])
    }

    @Test func exportingAMissingBlobOrIntoAMissingDirectoryFails() throws {
        let store = try BlobStore(storage: .inMemory())
        let directory = try TemporaryDirectory()
        let absent = try BlobHash(hex: String(repeating: "0", count: 64))
        expectCode(.blobNotFound) { try store.export(absent, toFile: directory.file("out")) }
        let info = try store.put([1, 2, 3])
        expectCode(.ioError) { try store.export(info.hash, toFile: directory.file("no/such/dir/out")) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
