import Foundation
import Testing
@testable import AccordCRDT

@Suite struct Lib0Tests {
    var lib0: [String: Any] { SharedFixtures.vectors["lib0"] as! [String: Any] }

    @Test func varUIntMatchesGoldenVectors() throws {
        for entry in lib0["varUint"] as! [[String: Any]] {
            let value = (entry["value"] as! NSNumber).uint64Value
            var w = ByteWriter()
            w.writeVarUInt(value)
            #expect(Hex.encode(w.bytes) == entry["hex"] as! String)
            var r = ByteReader(Hex.decode(entry["hex"] as! String))
            #expect(try r.readVarUInt() == value)
        }
    }

    @Test func varIntMatchesGoldenVectors() throws {
        for entry in lib0["varInt"] as! [[String: Any]] {
            let hex = entry["hex"] as! String
            var w = ByteWriter()
            var r = ByteReader(Hex.decode(hex))
            if entry["value"] as? String == "-0" {
                w.writeVarInt(0, negativeZero: true)
                #expect(try r.readVarInt().negativeZero)
            } else {
                let value = (entry["value"] as! NSNumber).int64Value
                w.writeVarInt(value)
                #expect(try r.readVarInt().value == value)
            }
            #expect(Hex.encode(w.bytes) == hex)
        }
    }

    @Test func varStringMatchesGoldenVectors() throws {
        for entry in lib0["varString"] as! [[String: Any]] {
            var w = ByteWriter()
            w.writeVarString(entry["value"] as! String)
            #expect(Hex.encode(w.bytes) == entry["hex"] as! String)
            var r = ByteReader(Hex.decode(entry["hex"] as! String))
            #expect(try r.readVarString() == entry["value"] as! String)
        }
    }

    @Test func truncatedInputThrowsMalformedUpdate() {
        var r = ByteReader([0x80, 0x80])
        #expect(throws: AccordError.self) { try r.readVarUInt() }
        var s = ByteReader([0x05, 0x61])
        let error = #expect(throws: AccordError.self) { try s.readVarString() }
        #expect(error?.code == .malformedUpdate)
    }

    @Test func invalidUTF8IsRejected() {
        var r = ByteReader([0x02, 0xc3, 0x28])
        #expect(throws: AccordError.self) { try r.readVarString() }
    }

    /// Skipping a string counts its UTF-16 units and accepts exactly what reading it
    /// accepts, wherever a non-ASCII byte falls (the skip takes ASCII eight bytes at a time).
    @Test func skippingAStringCountsItsUnitsAndRejectsWhatReadingRejects() throws {
        let pieces = ["a", "é", "€", "😀", "0123456789abcdef"]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let text = (0..<Int.random(in: 0...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            var w = ByteWriter()
            w.writeVarString(text)
            w.writeUInt8(0x2a)
            var skipping = ByteReader(w.bytes)
            #expect(try skipping.skipVarStringCountingUTF16() == text.utf16.count)
            #expect(try skipping.readUInt8() == 0x2a)

            // One byte broken at a random place: skipping throws exactly when reading does.
            var broken = w.bytes
            guard broken.count > 2 else { continue }
            broken[Int.random(in: 1..<(broken.count - 1), using: &random)] = [0x80, 0xc3, 0xff, 0xed].randomElement(using: &random)!
            var reading = ByteReader(broken)
            var skippingBroken = ByteReader(broken)
            let readFails = (try? reading.readVarString()) == nil
            let skipFails = (try? skippingBroken.skipVarStringCountingUTF16()) == nil
            #expect(readFails == skipFails, "\(broken)")
        }
    }

    /// A count larger than the remaining input could hold at its minimum element size
    /// is refused; the largest that fits is read.
    @Test func aCountIsBoundedByTheRemainingInput() throws {
        var fits = ByteReader([0x03, 0, 0, 0, 0, 0, 0])
        #expect(try fits.readCount(minElementSize: 2, "items") == 3)
        var tooMany = ByteReader([0x04, 0, 0, 0, 0, 0, 0])
        #expect(throws: AccordError.self) { try tooMany.readCount(minElementSize: 2, "items") }
        var huge = ByteReader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
        #expect(throws: AccordError.self) { try huge.readCount(minElementSize: 3, "items") }
    }
}
