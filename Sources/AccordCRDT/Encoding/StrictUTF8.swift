/// Strict decoding of one multi-byte UTF-8 sequence, shared by the two decoders of
/// update text (``ByteReader`` and ``CompactUpdate``): overlong forms, surrogates and
/// values past U+10FFFF are invalid, and an update holding them is malformed.
enum StrictUTF8 {
    /// The scalar encoded by the sequence whose lead byte (not ASCII) is at `i`, and the
    /// sequence's length in bytes; nil when it is invalid or does not end before `end`.
    /// `byte(k)` reads the byte at `k`, called only for `i <= k < end`.
    @inline(__always)
    static func scalar(at i: Int, end: Int, byte: (Int) -> UInt8) -> (value: UInt32, length: Int)? {
        let b0 = byte(i)
        var scalar: UInt32
        let need: Int
        let minimum: UInt32
        switch b0 {
        case 0xC2...0xDF: scalar = UInt32(b0 & 0x1F); need = 1; minimum = 0x80
        case 0xE0...0xEF: scalar = UInt32(b0 & 0x0F); need = 2; minimum = 0x800
        case 0xF0...0xF4: scalar = UInt32(b0 & 0x07); need = 3; minimum = 0x10000
        default: return nil
        }
        guard i + need < end else { return nil }
        for k in 1...need {
            let b = byte(i + k)
            guard b & 0xC0 == 0x80 else { return nil }
            scalar = scalar << 6 | UInt32(b & 0x3F)
        }
        guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return nil }
        return (scalar, need + 1)
    }
}
