import Testing
import AccordCRDT
import AccordTesting
@testable import AccordStore

/// Both SHA-256 engines (the CPU's SHA extensions, libsodium) give the FIPS 180-4
/// digests, and the same digest as each other for any input split any way.
@Suite struct SHA256EngineTests {
    static let engines: [SHA256Hasher.Engine] = HardwareSHA256.isAvailable ? [.hardware, .libsodium] : [.libsodium]

    private func hex(_ engine: SHA256Hasher.Engine, _ bytes: [UInt8]) throws -> String {
        var hasher = try SHA256Hasher(engine: engine)
        hasher.update(bytes)
        return hasher.finish().hex
    }

    @Test(arguments: engines) func knownAnswers(engine: SHA256Hasher.Engine) throws {
        #expect(try hex(engine, []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(try hex(engine, Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            try hex(engine, Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            try hex(engine, [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(.enabled(if: HardwareSHA256.isAvailable)) func enginesAgreeOnEveryLengthAndSplit() throws {
        var random = SplitMix64(seed: 0x5A256)
        for length in Array(0...200) + [511, 512, 513, 4_095, 4_096, 65_537] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let expected = try hex(.libsodium, bytes)
            // Fed in random pieces, so partial blocks meet whole ones in every combination.
            var hasher = try SHA256Hasher(engine: .hardware)
            var offset = 0
            while offset < length {
                let piece = Int.random(in: 1...max(1, min(length - offset, 130)), using: &random)
                bytes[offset..<offset + piece].withUnsafeBytes { hasher.update($0) }
                offset += piece
            }
            #expect(hasher.finish().hex == expected, "length \(length)")
        }
    }
}
