import Foundation
import Testing
import AccordCRDT
import AccordStore

@Suite struct BlobHashTests {
    /// FIPS 180-2 test vectors, and the digest of no bytes (as `sha256sum` prints them).
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func storedBlobsAreNamedBySHA256(text: String, expected: String) throws {
        let store = try BlobStore(storage: .inMemory())
        let info = try store.put(Array(text.utf8))
        #expect(info.hash.hex == expected)
        #expect(info.hash.description == expected)
        #expect(try store.get(BlobHash(hex: expected)) == Array(text.utf8))
    }

    /// One million "a", streamed through many chunks: the digest must not depend on
    /// where chunk boundaries fall.
    @Test func digestSpansChunks() throws {
        let store = try BlobStore(storage: .inMemory(), tuning: .init(chunkSize: 4096, chunksPerBatch: 5))
        let info = try store.put([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(info.hash.hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func hexRoundTripsAndAcceptsUppercase() throws {
        let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        let hash = try BlobHash(hex: hex)
        #expect(hash.bytes.count == 32)
        #expect(hash.bytes.first == 0xba)
        #expect(try BlobHash(hex: hex.uppercased()) == hash)
        #expect(try BlobHash(bytes: hash.bytes) == hash)
        #expect(try BlobHash(hex: String(repeating: "0", count: 64)) < hash)
    }

    @Test(arguments: [
        "",
        "abc",
        String(repeating: "0", count: 63),
        String(repeating: "0", count: 65),
        "0x" + String(repeating: "0", count: 62),
        String(repeating: "g", count: 64),
        " " + String(repeating: "0", count: 63),
        String(repeating: "é", count: 32),
    ])
    func invalidHexIsInvalidArgument(text: String) {
        let error = #expect(throws: AccordError.self) { try BlobHash(hex: text) }
        #expect(error?.code == .invalidArgument)
    }

    @Test(arguments: [0, 31, 33])
    func wrongByteCountIsInvalidArgument(count: Int) {
        let error = #expect(throws: AccordError.self) { try BlobHash(bytes: [UInt8](repeating: 1, count: count)) }
        #expect(error?.code == .invalidArgument)
    }
}
