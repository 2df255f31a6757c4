/// Reads that check what they pass over without building it: for scanning an update
/// for its shape (``UpdateScan``), where making a `String` or an ``AnyValue`` for every
/// struct would cost more than the scan itself. Each accepts exactly what the reading
/// counterpart accepts, and throws where it throws.
extension ByteReader {
    /// Passes over `count` bytes.
    mutating func skip(count: Int) throws(AccordError) {
        guard count >= 0, count <= remaining else { throw error("length \(count) runs past the end of input") }
        position += count
    }

    /// ``readVarString()`` without the string: the bytes must be valid UTF-8.
    mutating func skipVarString() throws(AccordError) {
        _ = try skipVarStringCountingUTF16()
    }

    /// ``readVarStringUTF16()`` without the units: returns how many UTF-16 units the
    /// string has (the length of a Yjs String item).
    mutating func skipVarStringCountingUTF16() throws(AccordError) -> Int {
        let count = try readCount("string length")
        let end = position + count
        // ASCII, which keys and ids nearly always are, is one unit per byte: found eight
        // bytes at a time, then only the rest is walked scalar by scalar.
        var i = position + Self.asciiPrefixLength(of: bytes, from: position, to: end)
        var units = i - position
        while i < end {
            let b0 = bytes[i]
            if b0 < 0x80 {
                units += 1
                i += 1
                continue
            }
            guard let (scalar, length) = StrictUTF8.scalar(at: i, end: end, byte: { bytes[$0] }) else {
                throw error("invalid UTF-8 in string")
            }
            units += scalar >= 0x10000 ? 2 : 1
            i += length
        }
        position = end
        return units
    }

    /// How many bytes of `bytes[start..<end]` from `start` on are ASCII, eight at a
    /// time (the last few bytes of a range are left to the caller's loop).
    @inline(__always)
    private static func asciiPrefixLength(of bytes: [UInt8], from start: Int, to end: Int) -> Int {
        bytes.withUnsafeBytes { raw -> Int in
            var i = start
            while i + 8 <= end, raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
            }
            return i - start
        }
    }
}

extension AnyValue {
    /// ``read(from:depth:)`` without the value.
    static func skip(from r: inout ByteReader, depth: Int = 0) throws(AccordError) {
        guard depth < maxDepth else { throw r.error("value nesting deeper than \(maxDepth)") }
        let tag = try r.readUInt8()
        switch tag {
        case 127, 126, 121, 120: return
        case 125: _ = try r.readVarInt()
        case 124: try r.skip(count: 4)
        case 123, 122: try r.skip(count: 8)
        case 119: try r.skipVarString()
        case 118:
            let count = try r.readCount(minElementSize: 2, "object size")
            for _ in 0..<count {
                try r.skipVarString()
                try skip(from: &r, depth: depth + 1)
            }
        case 117:
            let count = try r.readCount("array size")
            for _ in 0..<count { try skip(from: &r, depth: depth + 1) }
        case 116: try r.skip(count: try r.readCount("byte array length"))
        default: throw r.error("unknown value tag \(tag)")
        }
    }
}
