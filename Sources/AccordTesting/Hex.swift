import AccordCRDT

/// Lowercase hexadecimal text for bytes, as the golden vectors and the pycrdt peer write it.
public enum Hex {
    /// The bytes of `hex` (pairs of hex digits; a trailing odd digit is ignored).
    /// Invalid digits read as 0: the inputs are our own fixtures and peer replies.
    public static func decode(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(hex.utf8.count / 2)
        var it = hex.utf8.makeIterator()
        while let hi = it.next(), let lo = it.next() {
            out.append(UInt8(nibble(hi) << 4 | nibble(lo)))
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> Int {
        switch c {
        case 0x30...0x39: Int(c - 0x30)
        case 0x61...0x66: Int(c - 0x61 + 10)
        case 0x41...0x46: Int(c - 0x41 + 10)
        default: 0
        }
    }

    /// `bytes` as lowercase hex.
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        HexText.encode(bytes)
    }
}
