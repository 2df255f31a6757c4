import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

@Suite struct BlobReferenceTests {
    @Test(arguments: BlobBackend.allCases)
    func referencesAreListedPerDocumentAndBothWays(backend: BlobBackend) throws {
        let (store, directory) = try backend.makeStore()
        defer { withExtendedLifetime(directory) {} }
        let a = try store.put(Array("a".utf8), contentType: "text/plain")
        let b = try store.put(Array("b".utf8))
        #expect(try store.addReference(a.hash, document: "doc-1"))
        #expect(try store.addReference(b.hash, document: "doc-1"))
        #expect(try store.addReference(a.hash, document: "doc-2"))
        #expect(try store.addReference(a.hash, document: "doc-2") == false)

        #expect(try store.blobs(referencedBy: "doc-1") == [a, b].sorted { $0.hash < $1.hash })
        #expect(try store.blobs(referencedBy: "doc-2") == [a])
        #expect(try store.blobs(referencedBy: "nobody").isEmpty)
        #expect(try store.documents(referencing: a.hash) == ["doc-1", "doc-2"])
        #expect(try store.documents(referencing: b.hash) == ["doc-1"])

        #expect(try store.removeReference(a.hash, document: "doc-1"))
        #expect(try store.removeReference(a.hash, document: "doc-1") == false)
        #expect(try store.blobs(referencedBy: "doc-1") == [b])
        #expect(try store.documents(referencing: a.hash) == ["doc-2"])
    }

    @Test(arguments: BlobBackend.allCases)
    func garbageCollectionRemovesOnlyUnreferencedBlobs(backend: BlobBackend) throws {
        let (store, directory) = try backend.makeStore(tuning: BlobFixtures.smallChunks)
        defer { withExtendedLifetime(directory) {} }
        let kept = try store.put(BlobFixtures.randomBytes(9_000, seed: 1), referencedBy: "doc")
        let dropped = try store.put(BlobFixtures.randomBytes(9_000, seed: 2))
        let released = try store.put(BlobFixtures.randomBytes(100, seed: 3), referencedBy: "doc")
        try store.removeReference(released.hash, document: "doc")

        let report = try store.collectGarbage()
        #expect(report.removedBlobs == [dropped, released].sorted { $0.hash < $1.hash })
        #expect(report.removedOrphanUploads == 0)
        #expect(try store.list() == [kept])
        #expect(try store.get(kept.hash) == BlobFixtures.randomBytes(9_000, seed: 1))
        #expect(try BlobFixtures.storedCopies(store) == 1)
        // Nothing left to collect.
        #expect(try store.collectGarbage() == BlobGarbageReport(removedBlobs: [], removedOrphanUploads: 0))
    }

    /// An interrupted put leaves chunk logs that no index record names; collection
    /// removes them and nothing else.
    @Test(arguments: BlobBackend.allCases)
    func orphanChunksOfAnInterruptedPutAreCollected(backend: BlobBackend) throws {
        let (store, directory) = try backend.makeStore()
        defer { withExtendedLifetime(directory) {} }
        let kept = try store.put(Array("kept".utf8), referencedBy: "doc")
        try store.storage.withAdapter { adapter in
            try adapter.commit([
                .append(BlobFixtures.chunks, key: "00112233445566778899aabbccddeeff", sequence: 1, value: [1, 2, 3]),
                .append(BlobFixtures.chunks, key: "00112233445566778899aabbccddeeff", sequence: 2, value: [4]),
                .append(BlobFixtures.chunks, key: "ffeeddccbbaa99887766554433221100", sequence: 1, value: [5]),
            ])
        }
        let report = try store.collectGarbage()
        #expect(report.removedOrphanUploads == 2)
        #expect(report.removedBlobs.isEmpty)
        #expect(try BlobFixtures.storedCopies(store) == 1)
        #expect(try store.get(kept.hash) == Array("kept".utf8))
    }

    @Test func deleteDropsTheBlobsReferences() throws {
        let store = try BlobStore(storage: .inMemory())
        let a = try store.put(Array("a".utf8), referencedBy: "doc-1")
        let b = try store.put(Array("b".utf8), referencedBy: "doc-1")
        try store.addReference(a.hash, document: "doc-2")
        try store.delete(a.hash)
        #expect(try store.blobs(referencedBy: "doc-1") == [b])
        #expect(try store.blobs(referencedBy: "doc-2").isEmpty)
        #expect(try store.documents(referencing: a.hash).isEmpty)
        // Storing it again starts with no references.
        let again = try store.put(Array("a".utf8))
        #expect(try store.documents(referencing: again.hash).isEmpty)
        let refs = try store.storage.withAdapter { try $0.keys(in: StorageCategory("blob.refs")) }
        #expect(refs == ["doc-1"])
    }

    @Test func putWithAReferenceToContentAlreadyStoredAddsTheReference() throws {
        let store = try BlobStore(storage: .inMemory())
        let first = try store.put(Array("same".utf8), referencedBy: "doc-1")
        let second = try store.put(Array("same".utf8), referencedBy: "doc-2")
        #expect(second == first)
        #expect(try store.documents(referencing: first.hash) == ["doc-1", "doc-2"])
    }

    /// Ids are compared byte for byte, like storage keys: "é" and "e" + U+0301 are two
    /// documents although Swift's `String ==` calls them equal.
    @Test(arguments: BlobBackend.allCases)
    func documentIdsAreExactStrings(backend: BlobBackend) throws {
        let (store, directory) = try backend.makeStore()
        defer { withExtendedLifetime(directory) {} }
        let info = try store.put([1])
        for document: DocumentID in ["é", "e\u{301}", "a/b", "🙂"] { try store.addReference(info.hash, document: document) }
        #expect(try store.documents(referencing: info.hash).count == 4)
        #expect(try store.blobs(referencedBy: "e\u{301}") == [info])
        try store.removeReference(info.hash, document: "é")
        #expect(try store.documents(referencing: info.hash).map { Array($0.rawValue.utf8) } == [
            Array("a/b".utf8), Array("e\u{301}".utf8), Array("🙂".utf8),
        ])
    }
}
