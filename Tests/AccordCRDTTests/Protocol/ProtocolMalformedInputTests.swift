import Testing
import AccordTesting
@testable import AccordCRDT

/// Untrusted bytes must never crash the decoders: each input either decodes or throws
/// MALFORMED_MESSAGE.
@Suite struct ProtocolMalformedInputTests {
    /// Decodes a frame and, for awareness frames, the update inside it.
    static func decodeDeep(_ bytes: [UInt8]) throws(AccordError) {
        let frame = try ProtocolFrame.decode(bytes)
        if case .awareness(let update) = frame { _ = try AwarenessUpdate.decode(update) }
    }

    /// Runs `body` and fails unless it succeeds or throws a MALFORMED_MESSAGE error.
    static func expectDecodesOrMalformed(_ label: String, _ body: () throws(AccordError) -> Void) -> Bool {
        do throws(AccordError) {
            try body()
            return true
        } catch {
            #expect(error.code == .malformedMessage, "\(label): \(error)")
            return false
        }
    }

    static func mutations(of byte: UInt8) -> Set<UInt8> {
        [0x00, 0x01, 0x7f, 0x80, 0xff, byte ^ 0x01, byte ^ 0x40, byte ^ 0x80, byte &+ 1, byte &- 1]
    }

    @Test func everyTruncationOfAGoldenFrameIsRejected() {
        for (name, frame) in ProtocolFixtures.goldenFrames {
            #expect(throws: Never.self) { try Self.decodeDeep(frame) }
            for length in 0..<frame.count {
                let prefix = Array(frame.prefix(length))
                let decoded = Self.expectDecodesOrMalformed("\(name) cut to \(length)") { () throws(AccordError) in
                    try Self.decodeDeep(prefix)
                }
                // Every known frame ends in a length-prefixed field, so no cut can be valid.
                #expect(!decoded, "\(name) cut to \(length) bytes decoded")
            }
        }
        for (name, update) in ProtocolFixtures.goldenAwarenessUpdates {
            for length in 0..<update.count {
                let prefix = Array(update.prefix(length))
                let decoded = Self.expectDecodesOrMalformed("\(name) cut to \(length)") { () throws(AccordError) in
                    _ = try AwarenessUpdate.decode(prefix)
                }
                #expect(!decoded, "\(name) cut to \(length) bytes decoded")
            }
        }
    }

    @Test func singleByteMutationsDecodeOrThrowMalformedMessage() {
        var tried = 0
        for (name, frame) in ProtocolFixtures.goldenFrames {
            for index in frame.indices {
                for value in Self.mutations(of: frame[index]) where value != frame[index] {
                    var mutated = frame
                    mutated[index] = value
                    tried += 1
                    _ = Self.expectDecodesOrMalformed("\(name)[\(index)] = \(value)") { () throws(AccordError) in
                        try Self.decodeDeep(mutated)
                    }
                    // The same bytes minus the outer type, read as a bare sync message.
                    _ = Self.expectDecodesOrMalformed("sync \(name)[\(index)] = \(value)") { () throws(AccordError) in
                        _ = try SyncMessage.decode(Array(mutated.dropFirst()))
                    }
                }
            }
        }
        for (name, update) in ProtocolFixtures.goldenAwarenessUpdates {
            for index in update.indices {
                for value in Self.mutations(of: update[index]) where value != update[index] {
                    var mutated = update
                    mutated[index] = value
                    tried += 1
                    var awareness = Awareness(localClientID: 42, now: 0)
                    _ = Self.expectDecodesOrMalformed("\(name)[\(index)] = \(value)") { () throws(AccordError) in
                        _ = try awareness.apply(encoded: mutated, now: 1)
                    }
                }
            }
        }
        #expect(tried > 1_000)
    }

    @Test func randomBytesDecodeOrThrowMalformedMessage() {
        var rng = SplitMix64(seed: 0xacc0_4d)
        for round in 0..<5_000 {
            let length = Int(rng.next() % 24)
            var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            // Bias half the inputs towards known outer types so the inner decoders run.
            if !bytes.isEmpty, round % 2 == 0 { bytes[0] = UInt8(round / 2 % 4) }
            _ = Self.expectDecodesOrMalformed("random \(Hex.encode(bytes))") { () throws(AccordError) in
                try Self.decodeDeep(bytes)
            }
            _ = Self.expectDecodesOrMalformed("random update \(Hex.encode(bytes))") { () throws(AccordError) in
                _ = try AwarenessUpdate.decode(bytes)
            }
        }
    }
}
