/// Reads lib0 primitives from untrusted bytes.
///
/// Every read checks the remaining length first and throws ``AccordError`` with
/// ``errorCode`` (``ErrorCode/malformedUpdate`` by default) instead of trapping, so no
/// input can crash the process or make it allocate more than the input's own size.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    public internal(set) var position: Int
    public let errorCode: ErrorCode

    public init(_ bytes: [UInt8], errorCode: ErrorCode = .malformedUpdate) {
        self.bytes = bytes
        self.position = 0
        self.errorCode = errorCode
    }

    public var remaining: Int { bytes.count - position }
    public var isAtEnd: Bool { position >= bytes.count }

    public func error(_ message: String) -> AccordError {
        AccordError(errorCode, message, details: ["offset": String(position)])
    }

    @inline(__always)
    public mutating func readUInt8() throws(AccordError) -> UInt8 {
        guard position < bytes.count else { throw endOfInput() }
        let b = bytes[position]
        position += 1
        return b
    }

    /// Made out of line, so the inlined ``readUInt8()`` stays small.
    @inline(never)
    private func endOfInput() -> AccordError { error("unexpected end of input") }

    /// Reads a varUint of at most 64 bits; longer encodings are rejected.
    ///
    /// Most varUints in an update (lengths, counts, tags, small clocks) are one byte:
    /// that case is inlined into the caller, the rest is a call (an update holds a
    /// few of these per struct, and the call alone cost more than reading the byte).
    @inline(__always)
    public mutating func readVarUInt() throws(AccordError) -> UInt64 {
        if position < bytes.count {
            let b = bytes[position]
            if b < 0x80 {
                position += 1
                return UInt64(b)
            }
        }
        return try readMultiByteVarUInt()
    }

    /// ``readVarUInt()`` past its one-byte case.
    @inline(never)
    private mutating func readMultiByteVarUInt() throws(AccordError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.count else { throw error("truncated varUint") }
            let b = bytes[position]
            position += 1
            if shift == 63 && b > 1 { throw error("varUint overflows 64 bits") }
            result |= UInt64(b & 0x7f) << shift
            if b < 0x80 { return result }
            shift += 7
            if shift > 63 { throw error("varUint longer than 10 bytes") }
        }
    }

    /// A varUint that must fit in `limit` (used for lengths, counts and clocks).
    public mutating func readVarUInt(max limit: UInt64, _ what: String) throws(AccordError) -> Int {
        let v = try readVarUInt()
        guard v <= limit else { throw error("\(what) \(v) exceeds the limit \(limit)") }
        return Int(v)
    }

    /// A count of following elements, each at least `minElementSize` bytes: the count
    /// can never exceed what the remaining input could hold, so allocations sized by it
    /// are bounded by the input size.
    @inline(__always)
    public mutating func readCount(minElementSize: Int = 1, _ what: String) throws(AccordError) -> Int {
        let v = try readVarUInt()
        // `v * size <= remaining` without a division per count (every string and
        // value read has one) and without overflow (v is below `remaining` first).
        let remaining = UInt64(remaining)
        guard v <= remaining, v * UInt64(max(1, minElementSize)) <= remaining else {
            throw countError(what, v)
        }
        return Int(v)
    }

    /// Made out of line, so the inlined ``readCount(minElementSize:_:)`` stays small.
    @inline(never)
    private func countError(_ what: String, _ v: UInt64) -> AccordError {
        error("\(what) \(v) is larger than the remaining input allows")
    }

    /// Sign-magnitude varInt. Returns the value and whether it was "minus zero".
    public mutating func readVarInt() throws(AccordError) -> (value: Int64, negativeZero: Bool) {
        let first = try readUInt8()
        let negative = first & 0x40 != 0
        var magnitude = UInt64(first & 0x3f)
        var shift: UInt64 = 6
        var more = first & 0x80 != 0
        while more {
            let b = try readUInt8()
            if shift >= 64 || (shift == 62 && b & 0x7f > 1) { throw error("varInt overflows 64 bits") }
            magnitude |= UInt64(b & 0x7f) << shift
            shift += 7
            more = b & 0x80 != 0
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw error("varInt out of range") }
            if magnitude == 0 { return (0, true) }
            return (magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude), false)
        }
        guard magnitude <= UInt64(Int64.max) else { throw error("varInt out of range") }
        return (Int64(magnitude), false)
    }

    public mutating func readBytes(count: Int) throws(AccordError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw error("length \(count) runs past the end of input") }
        let slice = bytes[position..<(position + count)]
        position += count
        return slice
    }

    public mutating func readVarBytes() throws(AccordError) -> [UInt8] {
        let count = try readCount("byte array length")
        return Array(try readBytes(count: count))
    }

    /// A length-prefixed UTF-8 string; invalid UTF-8 is rejected, not repaired.
    public mutating func readVarString() throws(AccordError) -> String {
        let count = try readCount("string length")
        let slice = try readBytes(count: count)
        guard let s = UTF8Text.string(slice) else {
            throw error("invalid UTF-8 in string")
        }
        return s
    }

    /// A length-prefixed UTF-8 string decoded straight to UTF-16 code units (the unit
    /// of Yjs text), validating as it goes: one pass, one allocation.
    public mutating func readVarStringUTF16() throws(AccordError) -> [UInt16] {
        var out: [UInt16] = []
        try readVarStringUTF16(appendingTo: &out)
        return out
    }

    /// ``readVarStringUTF16()`` appending to `out` (which holds partial output if it
    /// throws), so that many strings can share one buffer.
    mutating func readVarStringUTF16<Output: RangeReplaceableCollection>(
        appendingTo out: inout Output
    ) throws(AccordError) where Output.Element == UInt16 {
        let count = try readCount("string length")
        let start = position
        let end = start + count
        // Reserving for a shared buffer would defeat its geometric growth.
        if out.isEmpty { out.reserveCapacity(count) }
        var i = start
        while i < end {
            let b0 = bytes[i]
            if b0 < 0x80 {
                out.append(UInt16(b0))
                i += 1
                continue
            }
            guard let (scalar, length) = StrictUTF8.scalar(at: i, end: end, byte: { bytes[$0] }) else {
                throw error("invalid UTF-8 in string")
            }
            if scalar >= 0x10000 {
                let v = scalar - 0x10000
                out.append(UInt16(0xD800 + (v >> 10)))
                out.append(UInt16(0xDC00 + (v & 0x3FF)))
            } else {
                out.append(UInt16(scalar))
            }
            i += length
        }
        position = end
    }

    public mutating func readFloat32() throws(AccordError) -> Float {
        Float(bitPattern: UInt32(truncatingIfNeeded: try readBigEndian(width: 4)))
    }

    public mutating func readFloat64() throws(AccordError) -> Double {
        Double(bitPattern: try readBigEndian(width: 8))
    }

    public mutating func readInt64() throws(AccordError) -> Int64 {
        Int64(bitPattern: try readBigEndian(width: 8))
    }

    private mutating func readBigEndian(width: Int) throws(AccordError) -> UInt64 {
        let raw = try readBytes(count: width)
        var v: UInt64 = 0
        for b in raw { v = v << 8 | UInt64(b) }
        return v
    }
}
