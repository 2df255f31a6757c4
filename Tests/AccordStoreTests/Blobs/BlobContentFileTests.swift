import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// Content files (``BlobDirectory``): where they go, the order a put makes them
/// durable in, what collection sweeps, what `wipeAll` leaves, and that sealed stores
/// never put plaintext on the disk.
@Suite struct BlobContentFileTests {
    static let marker = Array("ACCORD-PLAINTEXT-MARKER-7f3a".utf8)

    @Test func sqliteStoresKeepContentInFilesBesideTheDatabase() throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(storage: SerialStorage(path: directory.file("store.sqlite")))
        #expect(store.directory?.path == directory.file("store.sqlite.blobs"))
        #expect(store.directory?.isSealed == false)
        let content = BlobFixtures.randomBytes(50_000, seed: 1)
        let info = try store.put(content)
        // One plain file named by the hash; no upload file left; no chunks in SQLite.
        #expect(try BlobFixtures.directoryNames(store) == [info.hash.hex])
        #expect(try BlobFixtures.contents(BlobFixtures.contentFile(store, info.hash)!) == content)
        #expect(try store.storage.withAdapter { try $0.logKeys(in: BlobFixtures.chunks) }.isEmpty)
        // The same content again keeps one file.
        try store.put(content, contentType: "text/plain")
        #expect(try BlobFixtures.directoryNames(store) == [info.hash.hex])
        // Deleting removes the file.
        try store.delete(info.hash)
        #expect(try BlobFixtures.directoryNames(store).isEmpty)
        // In-memory SQLite and the in-memory adapter have no directory: chunks.
        #expect(try BlobStore(storage: SerialStorage(path: ":memory:")).directory == nil)
        #expect(try BlobStore(storage: .inMemory()).directory == nil)
    }

    /// The index record is committed only once the content file is in place under its
    /// hash name, complete; no upload file is left by then.
    @Test(arguments: [BlobBackend.sqlite, .sealed])
    func theIndexRecordIsCommittedOnlyAfterTheContentFileIsInPlace(backend: BlobBackend) throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(
            storage: SerialStorage(IndexCommitWatcher(wrapping: try backend.makeAdapter(in: directory))),
            tuning: BlobFixtures.smallChunks)
        let content = BlobFixtures.randomBytes(30_000, seed: 2)
        let info = try store.put(content)
        let observed = try store.storage.withAdapter { ($0 as? IndexCommitWatcher)?.observed[info.hash.hex] }
        let seen = try #require(observed)
        let expectedLength = backend == .sealed ? 29 + 30_000 + 17 * (8 + 1) : 30_000
        #expect(seen.count == 1, "one commit writes the index record")
        for commit in seen {
            #expect(commit.names == [info.hash.hex], "only the named content file, no upload file")
            #expect(commit.length == expectedLength)
        }
        #expect(try store.get(info.hash) == content)
    }

    /// A failing index commit (full disk, lost storage) leaves the store as it was: no
    /// index record, no content file, no upload file. The next put works.
    @Test func aFailedIndexCommitLeavesNoFiles() throws {
        let directory = try TemporaryDirectory()
        let faulty = FaultInjectingAdapter(
            wrapping: try SQLiteStorageAdapter(path: directory.file("store.sqlite")), failingCall: 1,
            counting: .writesOnly, fault: .diskFull)
        let store = try BlobStore(storage: SerialStorage(faulty))
        expectCode(.storageFull) { try store.put(BlobFixtures.randomBytes(5_000, seed: 3)) }
        #expect(try store.list().isEmpty)
        #expect(try BlobFixtures.directoryNames(store).isEmpty)
        let info = try store.put(BlobFixtures.randomBytes(5_000, seed: 3))
        #expect(try BlobFixtures.directoryNames(store) == [info.hash.hex])
    }

    /// What a crash can leave (an upload file, or a content file whose index record was
    /// never committed) is collected; indexed files and files that are not ours stay.
    @Test(arguments: [BlobBackend.sqlite, .sealed])
    func filesNoIndexRecordNamesAreCollected(backend: BlobBackend) throws {
        let (store, directory) = try backend.makeStore()
        defer { withExtendedLifetime(directory) {} }
        let kept = try store.put(Array("kept".utf8), referencedBy: "doc")
        let blobs = try #require(store.directory?.path)
        let orphanContent = String(repeating: "ab", count: 32)
        let orphanUpload = ".upload-00112233445566778899aabbccddeeff"
        for name in [orphanContent, orphanUpload, "README.txt"] {
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: "\(blobs)/\(name)"))
        }
        let report = try store.collectGarbage()
        #expect(report.removedOrphanUploads == 2)
        #expect(report.removedBlobs.isEmpty)
        #expect(try BlobFixtures.directoryNames(store) == ["README.txt", kept.hash.hex].sorted())
        #expect(try store.get(kept.hash) == Array("kept".utf8))
        // Collecting an unreferenced blob removes its file too.
        try store.removeReference(kept.hash, document: "doc")
        #expect(try store.collectGarbage().removedBlobs == [kept])
        #expect(try BlobFixtures.directoryNames(store) == ["README.txt"])
    }

    /// A content file that was changed, shortened, lengthened or removed reads as
    /// `STORAGE_CORRUPT` naming the blob, and an export then writes nothing.
    @Test(arguments: [BlobBackend.sqlite, .sealed])
    func aTamperedContentFileIsStorageCorrupt(backend: BlobBackend) throws {
        let (store, directory) = try backend.makeStore(tuning: BlobFixtures.smallChunks)
        defer { withExtendedLifetime(directory) {} }
        let output = try TemporaryDirectory()
        let content = BlobFixtures.randomBytes(20_000, seed: 4)
        let info = try store.put(content)
        let file = try #require(BlobFixtures.contentFile(store, info.hash))
        let original = try BlobFixtures.contents(file)
        let damages: [(String, ([UInt8]) -> [UInt8])] = [
            ("a flipped bit", { bytes in var bytes = bytes; bytes[bytes.count / 2] ^= 0x10; return bytes }),
            ("a flipped last byte", { bytes in var bytes = bytes; bytes[bytes.count - 1] ^= 0x01; return bytes }),
            ("a missing last byte", { Array($0.dropLast()) }),
            ("an extra byte", { $0 + [0] }),
            ("nothing", { _ in [] }),
        ]
        for (name, damage) in damages {
            try Data(damage(original)).write(to: URL(fileURLWithPath: file))
            let error = #expect(throws: AccordError.self, "\(name)") { try store.get(info.hash) }
            #expect(error?.code == .storageCorrupt, "\(name)")
            #expect(error?.details["blob"] == info.hash.hex, "\(name)")
            expectCode(.storageCorrupt) { try store.export(info.hash, toFile: output.file("out")) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: output.path).isEmpty, "\(name)")
        }
        try FileManager.default.removeItem(atPath: file)
        expectCode(.storageCorrupt) { _ = try store.get(info.hash) }
        // Deleting the damaged blob and putting it again repairs it.
        try store.delete(info.hash)
        try store.put(content)
        #expect(try store.get(info.hash) == content)
    }

    /// A sealed store never writes the plaintext: not to the database, the WAL, or the
    /// content files (an unsealed store does, which shows the scan finds it).
    @Test func aSealedStoreLeavesNoPlaintextOnDisk() throws {
        let content = BlobFixtures.marked(Self.marker, count: 300_000)
        for backend in [BlobBackend.sealed, .sqlite] {
            let directory = try TemporaryDirectory()
            let store = try BlobStore(storage: SerialStorage(try backend.makeAdapter(in: directory)))
            let info = try store.put(content, referencedBy: "doc")
            let source = try TemporaryDirectory()
            try Data(content).write(to: URL(fileURLWithPath: source.file("in")))
            try store.put(contentsOfFile: source.file("in"))
            #expect(try store.get(info.hash) == content)
            let found = try BlobFixtures.filesContaining(Self.marker, under: directory.path)
            if backend == .sealed {
                #expect(found.isEmpty, "plaintext in \(found)")
                #expect(try BlobFixtures.directoryNames(store) == [info.hash.hex])
            } else {
                #expect(found == ["store.sqlite.blobs/\(info.hash.hex)"])
            }
        }
    }

    /// A content file sealed with another key does not open, even when the index
    /// record does (the same content put into two stores with different keys).
    @Test func aContentFileSealedWithAnotherKeyIsStorageCorrupt() throws {
        let (first, firstDirectory) = try BlobBackend.sealed.makeStore()
        let (second, secondDirectory) = try BlobBackend.sealed.makeStore()
        defer { withExtendedLifetime((firstDirectory, secondDirectory)) {} }
        let content = BlobFixtures.randomBytes(10_000, seed: 5)
        let info = try first.put(content)
        try second.put(content)
        let foreign = try BlobFixtures.contents(try #require(BlobFixtures.contentFile(first, info.hash)))
        try Data(foreign).write(to: URL(fileURLWithPath: try #require(BlobFixtures.contentFile(second, info.hash))))
        let error = #expect(throws: AccordError.self) { try second.get(info.hash) }
        #expect(error?.code == .storageCorrupt)
        #expect(error?.details["blob"] == info.hash.hex)
        // Reopening with the wrong key fails at the store's key check first.
        let directory = try #require(firstDirectory)
        let wrongKey = try BlobStore(storage: SerialStorage(try BlobBackend.sealed.makeAdapter(in: directory)))
        expectCode(.storageCorrupt) { _ = try wrongKey.get(info.hash) }
    }

    /// Logout: `DocumentStore.wipeAll` on the shared storage removes the blob files
    /// with the rows; no blob byte stays on the disk, and blobs can be stored again.
    @Test(arguments: [BlobBackend.sqlite, .sealed, .sqliteChunks])
    func wipeAllLeavesNoBlobBytesOnDisk(backend: BlobBackend) throws {
        let directory = try TemporaryDirectory()
        let key = try SealingKey.generate()
        let storage = SerialStorage(try backend.makeAdapter(in: directory, key: key))
        let documents = DocumentStore(storage: storage)
        let blobs = try BlobStore(storage: storage)
        try documents.create("notes")
        let content = BlobFixtures.marked(Self.marker, count: 200_000)
        let info = try blobs.put(content, referencedBy: "notes")
        if backend != .sealed {
            #expect(try !BlobFixtures.filesContaining(Self.marker, under: directory.path).isEmpty)
        }
        try documents.wipeAll()
        #expect(try BlobFixtures.filesContaining(Self.marker, under: directory.path).isEmpty)
        #expect(try BlobFixtures.directoryNames(blobs).isEmpty)
        #expect(try blobs.list().isEmpty)
        #expect(try !blobs.exists(info.hash))
        #expect(try blobs.put(content).hash == info.hash)
        #expect(try blobs.get(info.hash) == content)
    }

    /// Blobs stored in chunks (before content files existed) read, delete and collect
    /// as before once the store keeps new content in files.
    @Test func blobsStoredInChunksStillReadWithContentFiles() throws {
        let directory = try TemporaryDirectory()
        let old = BlobFixtures.randomBytes(20_000, seed: 6)
        let oldInfo = try BlobStore(storage: SerialStorage(try BlobBackend.sqliteChunks.makeAdapter(in: directory)))
            .put(old, referencedBy: "doc")
        let gone = try BlobStore(storage: SerialStorage(try BlobBackend.sqliteChunks.makeAdapter(in: directory)))
            .put(Array("unreferenced".utf8))
        let store = try BlobStore(storage: SerialStorage(try BlobBackend.sqlite.makeAdapter(in: directory)))
        #expect(try store.get(oldInfo.hash) == old)
        let new = try store.put(BlobFixtures.randomBytes(20_000, seed: 7), referencedBy: "doc")
        #expect(try BlobFixtures.directoryNames(store) == [new.hash.hex])
        #expect(try store.list().count == 3)
        #expect(try store.collectGarbage().removedBlobs.map(\.hash) == [gone.hash])
        try store.delete(oldInfo.hash)
        #expect(try store.storage.withAdapter { try $0.logKeys(in: BlobFixtures.chunks) }.isEmpty)
        #expect(try store.list() == [new])
        // The same content as an old blob stays where it is: no second copy.
        let again = try BlobStore(storage: SerialStorage(try BlobBackend.sqliteChunks.makeAdapter(in: directory)))
            .put(old)
        try store.put(old)
        #expect(try BlobFixtures.directoryNames(store) == [new.hash.hex])
        #expect(try store.get(again.hash) == old)
    }

    /// A source that fails mid-way (a directory: open works, read fails) is `IO_ERROR`
    /// and leaves no upload file.
    @Test func aSourceFailingMidwayLeavesNoUploadFile() throws {
        let (store, directory) = try BlobBackend.sqlite.makeStore()
        defer { withExtendedLifetime(directory) {} }
        let source = try TemporaryDirectory()
        expectCode(.ioError) { try store.put(contentsOfFile: source.path) }
        #expect(try BlobFixtures.directoryNames(store).isEmpty)
        #expect(try store.list().isEmpty)
    }

    /// Collections while a put streams into its upload file leave the file alone. The
    /// put reads from a FIFO the test feeds one piece at a time.
    @Test func collectionLeavesARunningUploadFileAlone() throws {
        let (store, directory) = try BlobBackend.sqlite.makeStore(tuning: .init(chunkSize: 4096, chunksPerBatch: 1))
        defer { withExtendedLifetime(directory) {} }
        let pieces = (0..<4).map { BlobFixtures.randomBytes(4096, seed: UInt64($0)) }
        let info = try BlobFixtures.putThroughFIFO(
            store, at: try #require(directory).file("fifo"), pieces: pieces,
            whenWritten: { written in try Self.uploadedBytes(store) == written * 4096 },
            check: { written in
                let report = try store.collectGarbage()
                #expect(report.removedOrphanUploads == 0, "after piece \(written)")
            })
        #expect(try store.get(info.hash) == Array(pieces.joined()))
        #expect(try BlobFixtures.directoryNames(store) == [info.hash.hex])
    }

    /// The size of the only upload file (0 when there is none).
    private static func uploadedBytes(_ store: BlobStore) throws -> Int {
        guard let name = try BlobFixtures.directoryNames(store).first(where: { $0.hasPrefix(".upload-") }),
            let path = store.directory?.path
        else { return 0 }
        return (try FileManager.default.attributesOfItem(atPath: "\(path)/\(name)")[.size] as? Int) ?? 0
    }
}

/// Passes everything through, and at each commit that writes a `blob.index` record
/// notes what the blob directory held at that moment: the names, and the length of the
/// content file the record names (every such commit, in order).
final class IndexCommitWatcher: ForwardingAdapter {
    private(set) var observed: [String: [(names: [String], length: Int?)]] = [:]

    init(wrapping inner: any StorageAdapter) { super.init(inner) }

    override func commit(_ batch: [StorageOperation]) throws {
        for case .put(let category, let key, _) in batch where category == BlobFixtures.index {
            let path = inner.blobDirectory!.path
            let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            let length = try? FileManager.default.attributesOfItem(atPath: "\(path)/\(key)")[.size] as? Int
            observed[key, default: []].append((names, length))
        }
        try inner.commit(batch)
    }
}
