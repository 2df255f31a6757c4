import Testing
@testable import AccordCRDT

/// The writer keeps zeroed room after what it wrote and stores into it through a
/// pointer: these check that what comes out is exactly what was written, whatever the
/// room, copies and hand-overs in between.
@Suite struct ByteWriterTests {
    /// Every kind of write, from the smallest room, so that each one has to grow it.
    @Test func everyWriteGrowsTheRoomAndKeepsItsBytes() {
        var w = ByteWriter(capacity: 1)
        var expected: [UInt8] = []
        for round in 0..<200 {
            let value = UInt64(round) &* 0x9E37_79B9_7F4A_7C15 >> UInt64(round % 64)
            w.writeVarUInt(value)
            expected += Self.varUInt(value)
            w.writeUInt8(UInt8(truncatingIfNeeded: round))
            expected.append(UInt8(truncatingIfNeeded: round))
            let text = String(repeating: "é𝄞a", count: round % 7)
            w.writeVarString(text)
            expected += Self.varUInt(UInt64(text.utf8.count)) + Array(text.utf8)
            w.writeVarString(utf16: Array(text.utf16))
            expected += Self.varUInt(UInt64(text.utf8.count)) + Array(text.utf8)
            w.writeFloat64(Double(round) / 3)
            expected += withUnsafeBytes(of: (Double(round) / 3).bitPattern.bigEndian) { Array($0) }
            w.writeVarBytes(repeatElement(UInt8(7), count: round % 5))
            expected += Self.varUInt(UInt64(round % 5)) + Array(repeating: 7, count: round % 5)
            #expect(w.count == expected.count)
        }
        #expect(w.bytes == expected)
    }

    /// Writes far beyond the stretch of room zeroed at a time, one large and many small.
    @Test func writesBeyondTheZeroedStretch() {
        var w = ByteWriter(capacity: 1)
        let large = (0..<(3 * ByteWriter.zeroedStretch + 5)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        w.writeRaw(large)
        var expected = large
        for i in 0..<(2 * ByteWriter.zeroedStretch) {
            w.writeUInt8(UInt8(truncatingIfNeeded: i))
            expected.append(UInt8(truncatingIfNeeded: i))
        }
        w.writeVarString(String(repeating: "x", count: ByteWriter.zeroedStretch))
        expected += [0x80, 0x80, 0x04] + Array(repeating: UInt8(ascii: "x"), count: ByteWriter.zeroedStretch)
        #expect(w.count == expected.count)
        #expect(w.bytes == expected)
        #expect(w.takeBytes() == expected)
    }

    /// Raw bytes from a collection with contiguous storage and from one without.
    @Test func rawBytesFromAnyCollection() {
        var w = ByteWriter(capacity: 2)
        w.writeRaw([1, 2, 3] as [UInt8])
        w.writeRaw((4...9).map { UInt8($0) }[2...])
        w.writeRaw(Set<UInt8>([42]))
        w.writeRaw(repeatElement(UInt8(5), count: 40))
        w.writeRaw([UInt8]())
        #expect(w.bytes == [1, 2, 3, 6, 7, 8, 9, 42] + Array(repeating: 5, count: 40))
    }

    /// A lone surrogate becomes U+FFFD (three bytes), as JavaScript encoders write it.
    @Test func loneSurrogatesBecomeReplacementCharacters() {
        var w = ByteWriter(capacity: 1)
        w.writeVarString(utf16: [0x61, 0xD800, 0x62, 0xDC00, 0xD83D])
        #expect(w.bytes == [11, 0x61, 0xEF, 0xBF, 0xBD, 0x62, 0xEF, 0xBF, 0xBD, 0xEF, 0xBF, 0xBD])
    }

    /// A copy of a writer is its own: writing to one leaves the other as it was.
    @Test func aCopyIsIndependent() {
        var a = ByteWriter(capacity: 16)
        a.writeVarString("shared")
        var b = a
        b.writeUInt8(1)
        a.writeUInt8(2)
        #expect(a.bytes == [6] + Array("shared".utf8) + [2])
        #expect(b.bytes == [6] + Array("shared".utf8) + [1])
    }

    /// Taking the bytes hands over exactly those written, and leaves an empty writer
    /// that writes again from the start.
    @Test func takingTheBytesLeavesAnEmptyWriter() {
        var w = ByteWriter(capacity: 64)
        w.writeVarUInt(300)
        let copy = w.bytes
        let taken = w.takeBytes()
        #expect(taken == [0xAC, 0x02])
        #expect(copy == taken)
        #expect(w.count == 0)
        #expect(w.bytes.isEmpty)
        w.writeVarUInt(1)
        #expect(w.bytes == [1])
        #expect(w.withUnsafeBytes { Array($0) } == [1])
    }

    private static func varUInt(_ value: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        var v = value
        while v > 0x7F {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
        return out
    }
}
