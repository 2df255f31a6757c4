import Foundation
import Testing
import AccordTesting
@testable import AccordCRDT

/// Untrusted bytes: every truncation, seeded single-byte mutations and inflated varints of
/// every golden update either work or throw MALFORMED_UPDATE. A trap would end the run.
@Suite struct UpdateMalformedInputTests {
    static var updates: [GoldenUpdate] { UpdateVectors.allUpdates }

    /// A small valid update to merge the damaged one with (a single update is only checked).
    static let partner = Hex.decode("0101020004010174015800")

    enum Outcome { case ok, malformed }

    /// Runs every operation on `bytes`; records an issue for any error that is not
    /// MALFORMED_UPDATE. Returns whether decoding succeeded.
    @discardableResult
    static func exercise(_ bytes: [UInt8], _ label: String) -> Outcome {
        func run(_ what: String, _ body: () throws -> Void) {
            do { try body() } catch {
                #expect((error as? AccordError)?.code == .malformedUpdate, "\(label) \(what): \(error)")
            }
        }
        var decoded = false
        run("decode") {
            let d = try DecodedUpdate.decode(bytes)
            decoded = true
            // What decodes also encodes, and that encoding decodes again.
            _ = try DecodedUpdate.decode(d.encode())
        }
        run("merge single") { _ = try mergeUpdates([bytes]) }
        run("merge pair") { _ = try mergeUpdates([bytes, partner]) }
        run("merge pair reversed") { _ = try mergeUpdates([partner, bytes, bytes]) }
        run("diff") { _ = try diffUpdate(bytes, stateVector: Hex.decode("020101010201")) }
        run("diff as state vector") { _ = try diffUpdate(partner, stateVector: bytes) }
        run("state vector") { _ = try encodeStateVectorFromUpdate(bytes) }
        return decoded ? .ok : .malformed
    }

    @Test func allGoldenUpdatesAreValid() {
        for g in Self.updates { #expect(Self.exercise(g.bytes, g.label) == .ok, "\(g.label)") }
    }

    @Test func everyTruncationIsRejectedCleanly() {
        var accepted = 0
        for g in Self.updates {
            for n in 0..<g.bytes.count where Self.exercise(Array(g.bytes[..<n]), "\(g.label) [..<\(n)]") == .ok {
                accepted += 1
            }
        }
        // A few prefixes happen to be updates too (`00 00` of any update starting `00 00 ...`).
        #expect(accepted < 10)
    }

    @Test func singleByteMutations() {
        var rng = SplitMix64(seed: 0x0BAD_F00D)
        for g in Self.updates {
            for p in g.bytes.indices {
                var values: [UInt8] = [0x00, 0x01, 0x7f, 0x80, 0xff, g.bytes[p] ^ 0x80]
                for _ in 0..<2 { values.append(UInt8.random(in: 0...255, using: &rng)) }
                for v in values where v != g.bytes[p] {
                    var m = g.bytes
                    m[p] = v
                    Self.exercise(m, "\(g.label) [\(p)]=\(v)")
                }
            }
        }
    }

    /// Any byte may be (part of) a count, length or clock: make it a huge varint.
    @Test func inflatedVarints() {
        for g in Self.updates {
            for p in g.bytes.indices {
                let b = g.bytes[p]
                let replacements: [[UInt8]] = [
                    [b | 0x80, 0x01],                                                 // +128
                    [b | 0x80, 0xff, 0xff, 0xff, 0x0f],                               // ~2^35
                    [b | 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f],       // ~2^60
                    [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],     // 2^64-1
                    [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],     // overflows 64 bits
                    Array(repeating: 0x80, count: 12) + [0x00],                       // too long
                    [0xff, 0xff, 0xff, 0xff, 0x0f],                                   // 2^32-1
                ]
                for r in replacements {
                    let m = Array(g.bytes[..<p]) + r + Array(g.bytes[(p + 1)...])
                    Self.exercise(m, "\(g.label) [\(p)] inflated")
                }
            }
        }
    }

    @Test func randomGarbage() {
        var rng = SplitMix64(seed: 42)
        for _ in 0..<3000 {
            let n = Int.random(in: 0...48, using: &rng)
            // Mostly small bytes, so counts and refs are plausible and parsing goes deep.
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...(Bool.random(using: &rng) ? 12 : 255), using: &rng) }
            Self.exercise(bytes, "garbage \(Hex.encode(bytes))")
        }
    }

    @Test func errorsCarryTheCode() {
        for bad: [UInt8] in [[], [0x01], [0x01, 0x01, 0x01, 0x00, 0x1f], [0x00, 0x00, 0x00]] {
            do {
                _ = try mergeUpdates([bad, Self.partner])
                Issue.record("accepted \(bad)")
            } catch {
                #expect(error.code == .malformedUpdate)
            }
        }
        #expect(throws: AccordError.self) { try mergeUpdates([[0x01]]) }
        #expect(throws: AccordError.self) { try diffUpdate([0, 0], stateVector: [0x01, 0x01]) }
        #expect(throws: AccordError.self) { try encodeStateVectorFromUpdate([0x00]) }
    }

    /// Re-encoding a Format value of 1e20 traps in AnyValue.jsNumberText
    /// (Values/AnyValue+JSON.swift converts integral doubles below 1e21 with Int64(d),
    /// which traps from 2^63 on). That file is outside Update/; reported, not fixed here.
    /// JavaScript writes the value back as "100000000000000000000".
    @Test
    func hugeJSONNumberInFormatDoesNotTrap() throws {
        // client 1, clock 0: Format on root "t", key "b", JSON value text "1e20".
        let u: [UInt8] = [1, 1, 1, 0, 0x06, 1, 1, 0x74, 1, 0x62, 4] + Array("1e20".utf8) + [0]
        let merged = try DecodedUpdate.decode(try mergeUpdates([u, [0, 0]]))
        guard case .item(let item) = merged.groups[0].structs[0], case .format(_, let value) = item.content else {
            Issue.record("not a format item")
            return
        }
        #expect(value.jsonText == "100000000000000000000")
    }
}
