import Testing
import AccordCRDT
@testable import AccordStore

/// A document's reference list is added to in place (``BlobReferenceLists/addingHash(_:to:document:)``)
/// rather than decoded, sorted and encoded again per reference: the stored bytes must
/// stay exactly what encoding the whole set gives.
@Suite struct BlobReferenceListGrowthTests {
    private static func hash(_ seed: UInt8) -> BlobHash {
        BlobHash(validatedBytes: (0..<32).map { UInt8(truncatingIfNeeded: Int($0) &* 31 &+ Int(seed) &* 97) })
    }

    @Test func addingInAnyOrderGivesTheSortedEncodingOfTheSet() throws {
        var encoded: [UInt8]?
        var set = Set<BlobHash>()
        // Front, back, middle and repeats.
        for seed: UInt8 in [200, 3, 100, 250, 0, 101, 99, 3, 200, 7] {
            let hash = Self.hash(seed)
            let next = try BlobReferenceLists.addingHash(hash, to: encoded, document: "doc")
            #expect((next == nil) == !set.insert(hash).inserted)
            if let next { encoded = next }
            #expect(encoded == BlobReferenceLists.encodeHashes(set))
        }
        #expect(try BlobReferenceLists.decodeHashes(encoded ?? [], document: "doc") == set)
    }

    @Test func anUnsortedListIsSortedAndADamagedOneRefused() throws {
        let (a, b, c) = (Self.hash(1), Self.hash(2), Self.hash(3))
        let unsorted = [BlobReferenceLists.version] + [b, a].sorted(by: >).flatMap(\.bytes)
        let added = try #require(try BlobReferenceLists.addingHash(c, to: unsorted, document: "doc"))
        #expect(added == BlobReferenceLists.encodeHashes([a, b, c]))
        // Already there, though out of order: nothing to write.
        #expect(try BlobReferenceLists.addingHash(a, to: unsorted, document: "doc") == nil)

        let damaged = [BlobReferenceLists.version] + Array(repeating: 1, count: 33)
        #expect(throws: AccordError.self) { try BlobReferenceLists.addingHash(a, to: damaged, document: "doc") }
        #expect(throws: AccordError.self) { try BlobReferenceLists.addingHash(a, to: [9] + a.bytes, document: "doc") }
    }

    @Test func aListDecodesAscendingWithoutASet() throws {
        let hashes = [Self.hash(5), Self.hash(6), Self.hash(7)]
        let encoded = BlobReferenceLists.encodeHashes(Set(hashes))
        #expect(try BlobReferenceLists.decodeHashList(encoded, document: "doc") == hashes.sorted())
        // Out of order or repeated (well formed, yet not as written): sorted, once each.
        let odd = [BlobReferenceLists.version] + (hashes.sorted(by: >) + [hashes[0]]).flatMap(\.bytes)
        #expect(try BlobReferenceLists.decodeHashList(odd, document: "doc") == hashes.sorted())
        #expect(throws: AccordError.self) { try BlobReferenceLists.decodeHashList([1, 2, 3], document: "doc") }
    }

    /// Through the store: a thousand references added one at a time are all listed, in order.
    @Test func aThousandReferencesAddedOneByOneAreAllListed() throws {
        let store = try BlobStore(storage: .inMemory())
        var infos: [BlobInfo] = []
        for index in 0..<1000 {
            let info = try store.put(Array("blob \(index)".utf8), referencedBy: "doc")
            infos.append(info)
        }
        #expect(try store.addReference(infos[500].hash, document: "doc") == false)
        #expect(try store.blobs(referencedBy: "doc") == infos.sorted { $0.hash < $1.hash })
        #expect(try store.documents(referencing: infos[999].hash) == ["doc"])
    }

    @Test func equalHashesHashAlike() {
        let one = Self.hash(42)
        let same = BlobHash(validatedBytes: one.bytes)
        #expect(one == same)
        #expect(one.hashValue == same.hashValue)
        #expect(Set([one, same, Self.hash(43)]).count == 2)
    }
}
