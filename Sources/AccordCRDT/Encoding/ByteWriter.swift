/// Appends lib0 primitives (the encoding under Yjs updates and y-protocols messages).
///
/// See `design/yjs-wire-format.md` section 1. Fixed-width numbers are big-endian.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func writeUInt8(_ value: UInt8) { bytes.append(value) }

    public mutating func writeRaw<C: Collection>(_ raw: C) where C.Element == UInt8 {
        bytes.append(contentsOf: raw)
    }

    /// Little-endian base-128, 7 bits per byte, 0x80 marks "more follows". The one-byte
    /// case (most lengths, clocks of small documents, info bytes' neighbours) is inlined
    /// into its callers: an update writes several of these per item.
    @inline(__always)
    public mutating func writeVarUInt(_ value: UInt64) {
        if value < 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value))
            return
        }
        writeLongVarUInt(value)
    }

    private mutating func writeLongVarUInt(_ value: UInt64) {
        var v = value
        while v > 0x7f {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(truncatingIfNeeded: v))
    }

    @inline(__always)
    public mutating func writeVarUInt(_ value: Int) { writeVarUInt(UInt64(UInt(bitPattern: value))) }

    /// Sign and magnitude (not zig-zag): the first byte holds 6 bits, 0x40 is the sign.
    public mutating func writeVarInt(_ value: Int64, negativeZero: Bool = false) {
        let negative = value < 0 || (value == 0 && negativeZero)
        var magnitude = value.magnitude
        var first = UInt8(truncatingIfNeeded: magnitude & 0x3f) | (negative ? 0x40 : 0)
        magnitude >>= 6
        if magnitude > 0 { first |= 0x80 }
        bytes.append(first)
        while magnitude > 0 {
            var b = UInt8(truncatingIfNeeded: magnitude & 0x7f)
            magnitude >>= 7
            if magnitude > 0 { b |= 0x80 }
            bytes.append(b)
        }
    }

    /// `varUint(utf8 count) · utf8`.
    public mutating func writeVarString(_ string: String) {
        var s = string
        s.withUTF8 { utf8 in
            writeVarUInt(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// `varUint(utf8 count) · utf8` from UTF-16 code units, without building a String.
    /// A lone surrogate is written as U+FFFD, as JavaScript encoders do.
    public mutating func writeVarString<C: Collection>(utf16 units: C) where C.Element == UInt16 {
        var length = 0
        var it = units.makeIterator()
        var pending: UInt16? = nil
        func scalarLength(_ u: UInt32) -> Int { u < 0x80 ? 1 : u < 0x800 ? 2 : u < 0x10000 ? 3 : 4 }
        // First pass: the UTF-8 length.
        while let u = pending ?? it.next() {
            pending = nil
            if UTF16.isLeadSurrogate(u) {
                if let next = it.next() {
                    if UTF16.isTrailSurrogate(next) { length += 4 } else { length += 3; pending = next }
                } else {
                    length += 3
                }
            } else if UTF16.isTrailSurrogate(u) {
                length += 3
            } else {
                length += scalarLength(UInt32(u))
            }
        }
        writeVarUInt(UInt64(length))
        bytes.reserveCapacity(bytes.count + length)
        var it2 = units.makeIterator()
        pending = nil
        while let u = pending ?? it2.next() {
            pending = nil
            var scalar = UInt32(u)
            if UTF16.isLeadSurrogate(u) {
                if let next = it2.next() {
                    if UTF16.isTrailSurrogate(next) {
                        scalar = 0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(next) - 0xDC00)
                    } else {
                        scalar = 0xFFFD
                        pending = next
                    }
                } else {
                    scalar = 0xFFFD
                }
            } else if UTF16.isTrailSurrogate(u) {
                scalar = 0xFFFD
            }
            switch scalar {
            case 0..<0x80:
                bytes.append(UInt8(scalar))
            case 0x80..<0x800:
                bytes.append(UInt8(0xC0 | scalar >> 6))
                bytes.append(UInt8(0x80 | scalar & 0x3F))
            case 0x800..<0x10000:
                bytes.append(UInt8(0xE0 | scalar >> 12))
                bytes.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
                bytes.append(UInt8(0x80 | scalar & 0x3F))
            default:
                bytes.append(UInt8(0xF0 | scalar >> 18))
                bytes.append(UInt8(0x80 | (scalar >> 12) & 0x3F))
                bytes.append(UInt8(0x80 | (scalar >> 6) & 0x3F))
                bytes.append(UInt8(0x80 | scalar & 0x3F))
            }
        }
    }

    /// `varUint(count) · bytes`.
    public mutating func writeVarBytes<C: Collection>(_ data: C) where C.Element == UInt8 {
        writeVarUInt(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    public mutating func writeFloat32(_ value: Float) { writeBigEndian(UInt64(value.bitPattern), width: 4) }
    public mutating func writeFloat64(_ value: Double) { writeBigEndian(value.bitPattern, width: 8) }
    public mutating func writeInt64(_ value: Int64) { writeBigEndian(UInt64(bitPattern: value), width: 8) }

    private mutating func writeBigEndian(_ value: UInt64, width: Int) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
