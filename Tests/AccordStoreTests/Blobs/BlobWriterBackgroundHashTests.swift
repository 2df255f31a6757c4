import Testing
import AccordCRDT
import AccordTesting
@testable import AccordStore

/// Past ``BlobWriter/backgroundHashingFrom`` a writer's content file is hashed on a
/// thread of its own, reading back what was written (``TrailingFileHasher``). The
/// verdicts must be the ones inline hashing gave; see also
/// `BlobSmallContentTests.theWriterStoresWhatItWasFedOnlyUnderItsHash` (3 MiB case).
@Suite struct BlobWriterBackgroundHashTests {
    private static func feed(_ writer: BlobWriter, _ content: [UInt8], piece: Int = 65_536) throws {
        for start in stride(from: 0, to: content.count, by: piece) {
            try content[start..<min(content.count, start + piece)].withUnsafeBytes { try writer.write($0) }
        }
    }

    @Test func severalLargeWritersAtOnceEachStoreTheirOwnContent() throws {
        let (store, directory) = try BlobBackend.sqlite.makeStore()
        _ = directory
        let contents = (0..<4).map { BlobFixtures.randomBytes((2 << 20) + $0 * 12_345, seed: 40 + UInt64($0)) }
        let writers = try contents.map { _ in try BlobWriter(store: store) }
        // Interleaved, as downloads running together feed theirs.
        for start in stride(from: 0, to: contents.map(\.count).max()!, by: 50_000) {
            for (writer, content) in zip(writers, contents) where start < content.count {
                try content[start..<min(content.count, start + 50_000)].withUnsafeBytes { try writer.write($0) }
            }
        }
        for (writer, content) in zip(writers, contents) {
            let info = try writer.finish(expected: SHA256Hasher.hash(content), contentType: "a/b", reference: "d")
            #expect(try store.get(info.hash) == content)
        }
        #expect(try store.list().count == 4)
    }

    @Test func anAbandonedLargeWriterLeavesNothing() throws {
        let (store, directory) = try BlobBackend.sqlite.makeStore()
        _ = directory
        let writer = try BlobWriter(store: store)
        try Self.feed(writer, BlobFixtures.randomBytes(3 << 20, seed: 9))
        writer.abandon()
        #expect(try store.list().isEmpty)
        #expect(try BlobFixtures.directoryNames(store).isEmpty, "no upload file left")
        // A finish after the abandon is refused, not waited on.
        #expect(throws: AccordError.self) {
            try writer.finish(expected: BlobHash(validatedBytes: [UInt8](repeating: 1, count: 32)), contentType: "a/b", reference: nil)
        }
    }

    @Test func wrongLargeContentIsAMismatchAndKeepsNothing() throws {
        let (store, directory) = try BlobBackend.sqlite.makeStore()
        _ = directory
        let content = BlobFixtures.randomBytes(5 << 20, seed: 11)
        var wrong = content
        wrong[(4 << 20) + 17] ^= 0x01  // late, well behind the point hashing moved to its thread
        let writer = try BlobWriter(store: store)
        try Self.feed(writer, wrong, piece: 65_520)
        let error = #expect(throws: AccordError.self) {
            try writer.finish(expected: SHA256Hasher.hash(content), contentType: "a/b", reference: "d")
        }
        #expect(error?.code == .blobHashMismatch)
        #expect(try store.list().isEmpty)
        #expect(try BlobFixtures.directoryNames(store).isEmpty, "no upload file left")
    }

    /// The writer tells the hashing thread how far the file is written once per MiB
    /// (``TrailingFileHasher/piece``), and `finish` passes on the rest: sizes just off
    /// those steps, fed in pieces that do and do not divide them, still hash every
    /// byte, and a change in the last bytes (never passed on before `finish`) is a mismatch.
    @Test(arguments: [(1 << 20) + 1, (2 << 20) - 1, 2 << 20, (3 << 20) + 65_519])
    func everyByteIsHashedWhateverTheSizeAndThePieces(size: Int) throws {
        for piece in [65_520, 262_144, 1 << 20, 3_000_000] {
            let (store, directory) = try BlobBackend.sqlite.makeStore()
            _ = directory
            let content = BlobFixtures.randomBytes(size, seed: UInt64(size ^ piece))
            let writer = try BlobWriter(store: store)
            try Self.feed(writer, content, piece: piece)
            let info = try writer.finish(expected: SHA256Hasher.hash(content), contentType: "a/b", reference: nil)
            #expect(try store.get(info.hash) == content, "size \(size), pieces of \(piece)")

            var wrong = content
            wrong[size - 1] ^= 0x80
            let other = try BlobWriter(store: store)
            try Self.feed(other, wrong, piece: piece)
            let error = #expect(throws: AccordError.self) {
                try other.finish(expected: SHA256Hasher.hash(content), contentType: "a/b", reference: nil)
            }
            #expect(error?.code == .blobHashMismatch, "size \(size), pieces of \(piece)")
            #expect(try store.list().map(\.hash) == [info.hash])
        }
    }

    /// A download (a writer fed from the network) is durable once it is reported
    /// complete, like a put: its index record is committed only after the content file
    /// is complete under its hash name (synced before the rename, the directory synced
    /// after it), with no upload file left. So a crash after the download returned
    /// finds the content readable; docs/blobs.md says why this stays inside the
    /// download's time rather than being deferred.
    @Test(arguments: [BlobBackend.sqlite, .sealed])
    func aDownloadIsCommittedOnlyOnceItsContentFileIsInPlace(backend: BlobBackend) throws {
        let directory = try TemporaryDirectory()
        let store = try BlobStore(
            storage: SerialStorage(IndexCommitWatcher(wrapping: try backend.makeAdapter(in: directory))),
            tuning: BlobStore.Tuning(inlineLimit: BlobStore.Tuning.smallBlobInlineLimit))
        let content = BlobFixtures.randomBytes((3 << 20) + 777, seed: 31)
        let writer = try BlobWriter(store: store)
        try Self.feed(writer, content, piece: 262_144)
        let info = try writer.finish(expected: SHA256Hasher.hash(content), contentType: "a/b", reference: "d")
        let observed = try store.storage.withAdapter { ($0 as? IndexCommitWatcher)?.observed[info.hash.hex] }
        let seen = try #require(observed)
        #expect(seen.count == 1, "one commit writes the index record")
        for commit in seen {
            #expect(commit.names == [info.hash.hex], "only the named content file, no upload file")
            #expect((commit.length ?? 0) >= content.count, "the whole content is in the file")
        }
        #expect(try store.get(info.hash) == content)
    }
}
