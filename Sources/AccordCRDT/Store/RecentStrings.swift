/// Values looked up by a string over and over, found again by the bits of the `String`
/// itself rather than by hashing its text: a record's fields are set under the same
/// few names for every record (hashing the name to intern it was about a tenth of
/// saving a record), and the index runs the same long SQL text for every chunk of rows.
///
/// A hit needs the same 16 bytes of `String`: the same inline bytes of a small string
/// (which hold its UTF-8 text, so the same bits are the same text), or the same storage
/// object of a large one (kept alive by the entry, so its address is never reused for
/// other text while the entry holds it). Any other string misses, and the caller takes
/// its usual path. So a hit is always right; a miss costs a few instructions.
package struct RecentStrings<Value> {
    private static var slots: Int { 32 }
    /// Per slot: the string's bits, and the string with its value (what keeps a large
    /// string's storage alive). The look-up reads the bits first, retaining nothing.
    private var bits = ContiguousArray<(UInt64, UInt64)>(repeating: (0, 0), count: slots)
    private var held = ContiguousArray<(text: String, value: Value)?>(repeating: nil, count: slots)

    /// Whether `String` has the 16-byte layout the comparison reads (64-bit platforms).
    private static var enabled: Bool { MemoryLayout<String>.size == 16 }

    package init() {}

    @inline(__always)
    private static func bits(_ text: String) -> (UInt64, UInt64) {
        unsafeBitCast(text, to: (UInt64, UInt64).self)
    }

    @inline(__always)
    private static func slot(_ bits: (UInt64, UInt64)) -> Int {
        let mixed = (bits.0 ^ (bits.1 &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 59) & (slots - 1)
    }

    /// The value remembered for `text`, when it was remembered as these very bits.
    @inline(__always)
    package func value(for text: String) -> Value? {
        guard Self.enabled else { return nil }
        let textBits = Self.bits(text)
        let slot = Self.slot(textBits)
        guard bits[slot] == textBits, let entry = held[slot] else { return nil }
        return entry.value
    }

    package mutating func remember(_ text: String, _ value: Value) {
        guard Self.enabled else { return }
        let textBits = Self.bits(text)
        let slot = Self.slot(textBits)
        held[slot] = (text, value)
        bits[slot] = textBits
    }

    package mutating func removeAll() {
        bits = ContiguousArray(repeating: (0, 0), count: Self.slots)
        held = ContiguousArray(repeating: nil, count: Self.slots)
    }
}

extension String {
    /// Whether the two strings are the same 16 bytes: the same inline bytes of a small
    /// string (its UTF-8 text) or the same storage object of a large one. True means the
    /// same text; false means nothing (equal text can sit in two objects). False on
    /// platforms where `String` is not 16 bytes.
    @inline(__always)
    package func hasSameBits(as other: String) -> Bool {
        MemoryLayout<String>.size == 16
            && unsafeBitCast(self, to: (UInt64, UInt64).self) == unsafeBitCast(other, to: (UInt64, UInt64).self)
    }

    /// The 16 bytes ``hasSameBits(as:)`` compares, to compare one string with many kept
    /// ones; nil on platforms where `String` is not 16 bytes. Only meaningful while the
    /// string is alive (a large string's bits hold its storage's address).
    @inline(__always)
    package var bits: (UInt64, UInt64)? {
        MemoryLayout<String>.size == 16 ? unsafeBitCast(self, to: (UInt64, UInt64).self) : nil
    }
}
