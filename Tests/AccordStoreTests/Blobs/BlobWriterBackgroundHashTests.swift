import Testing
import AccordCRDT
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
}
