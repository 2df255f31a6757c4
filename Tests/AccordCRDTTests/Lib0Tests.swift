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
}
