import Testing
import AccordTesting
@testable import AccordCRDT

/// Accord messages come from the network: every input either decodes or throws
/// MALFORMED_MESSAGE, never crashes or fails with another code.
@Suite struct AccordMessageMalformedInputTests {
    static func decode(_ bytes: [UInt8], multiplexed: Bool) throws(AccordError) {
        if multiplexed {
            _ = try MultiplexedFrame.decode(bytes)
        } else {
            _ = try AccordMessage.decode(bytes)
        }
    }

    /// True if `bytes` decoded; records an issue if it threw anything but MALFORMED_MESSAGE.
    static func decodesOrMalformed(_ bytes: [UInt8], multiplexed: Bool, _ label: String) -> Bool {
        do throws(AccordError) {
            try decode(bytes, multiplexed: multiplexed)
            return true
        } catch {
            #expect(error.code == .malformedMessage, "\(label): \(error)")
            return false
        }
    }

    @Test func everyTruncationOfEveryExampleIsRejected() {
        for (name, bytes, multiplexed) in AccordMessageFixtures.allEncoded {
            #expect(Self.decodesOrMalformed(bytes, multiplexed: multiplexed, name), "\(name) must decode whole")
            for length in 0..<bytes.count {
                let decoded = Self.decodesOrMalformed(Array(bytes.prefix(length)), multiplexed: multiplexed,
                                                      "\(name) cut to \(length)")
                #expect(!decoded, "\(name) cut to \(length) bytes decoded")
            }
        }
    }

    @Test func trailingBytesAreRejected() {
        for (name, bytes, multiplexed) in AccordMessageFixtures.allEncoded {
            for garbage: [UInt8] in [[0], [0xff], [1, 2, 3]] {
                let decoded = Self.decodesOrMalformed(bytes + garbage, multiplexed: multiplexed, "\(name) + \(garbage)")
                #expect(!decoded, "\(name) with trailing \(garbage) decoded")
            }
        }
    }

    static let malformed: [(String, String)] = [
        ("unknown subtype", "64 05"),
        ("huge subtype", "64 ffffffffffffffffff01"),
        ("not type 100", "65 00 00 00 00"),
        ("string length past the end", "64 00 ffffffff0f"),
        ("byte count larger than the input", "64 01 01 61 01 ffffffffffffffff7f"),
        ("varuint over 64 bits", "64 02 01 61 ffffffffffffffffff7f"),
        ("invalid UTF-8", "64 00 02 c328 00 00"),
        ("overlong UTF-8", "64 00 02 c0af 00 00"),
        ("empty document id", "64 02 00 01"),
        ("document id over 256 bytes", "64 02 8102 " + String(repeating: "61", count: 257) + " 01"),
        ("control character in document id", "64 02 02 611b 01"),
        ("error code over 64 bytes", "64 03 41 " + String(repeating: "43", count: 65) + " 00 00"),
        ("empty error code", "64 03 00 00 00"),
        ("optional marker 2", "64 03 01 45 00 02 01 61"),
        ("payload not JSON", "64 04 01 64 01 74 01 7b 00"),
        ("payload undefined", "64 04 01 64 01 74 09 756e646566696e6564 00"),
        ("server version over 256 bytes", "64 00 8102 " + String(repeating: "76", count: 257) + " 00 00"),
    ]

    @Test(arguments: malformed)
    func malformedMessagesAreRefused(_ name: String, _ hex: String) {
        let decoded = Self.decodesOrMalformed(AccordMessageFixtures.bytes(hex), multiplexed: false, name)
        #expect(!decoded, "\(name) decoded")
    }

    @Test func randomByteFlipsNeverCrash() {
        var rng = SplitMix64(seed: 0xACC0_4D5E_ED)
        let examples = AccordMessageFixtures.allEncoded
        var decodedCount = 0
        for round in 0..<5_000 {
            let (name, original, multiplexed) = examples[round % examples.count]
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &rng)
            }
            if Self.decodesOrMalformed(bytes, multiplexed: multiplexed, "\(name) round \(round)") { decodedCount += 1 }
        }
        // Pure noise too, of every small length.
        for length in 0..<64 {
            for _ in 0..<50 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
                _ = Self.decodesOrMalformed([100] + bytes, multiplexed: false, "noise \(bytes)")
                _ = Self.decodesOrMalformed(bytes, multiplexed: true, "mux noise \(bytes)")
            }
        }
        #expect(decodedCount < 5_000, "some flips must be caught")
    }
}
