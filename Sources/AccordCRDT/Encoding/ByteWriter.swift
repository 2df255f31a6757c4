/// Appends lib0 primitives (the encoding under Yjs updates and y-protocols messages).
///
/// See `design/yjs-wire-format.md` section 1. Fixed-width numbers are big-endian.
public struct ByteWriter: Sendable {
    /// The bytes written, then zeroed room for more: `storage.count` is the room, ``count``
    /// the length. A write of several bytes checks the room (and that the buffer is not
    /// shared) once and then stores through a pointer. `Array.append` made both checks
    /// for every byte, and an update is written byte by byte: that was most of the cost of
    /// encoding a transaction's update.
    private var storage: [UInt8]
    /// How many bytes have been written.
    public private(set) var count = 0

    /// Reserves `capacity` bytes; the first write zeroes its room (``grow(toFit:)``).
    /// `Array(repeating:count:)` and `Array(unsafeUninitializedCapacity:)` allocated
    /// through the standard library's generic code, twice the cost of this allocation,
    /// for the small writer of each keystroke's update.
    public init(capacity: Int = 64) {
        storage = []
        storage.reserveCapacity(Swift.max(capacity, 16))
    }

    /// The bytes written (a copy; ``takeBytes()`` hands them over without one).
    public var bytes: [UInt8] { Array(storage[..<count]) }

    /// Hands over the bytes written without copying them, and leaves the writer empty.
    public mutating func takeBytes() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &storage)
        taken.removeLast(taken.count - count)
        count = 0
        return taken
    }

    /// Calls `body` with the bytes written so far.
    public func withUnsafeBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try storage.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[..<count])) }
    }

    /// Makes room for `atMost` bytes, lets `body` store them from the pointer it gets
    /// and say how many it stored.
    @inline(__always)
    private mutating func write(atMost room: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if storage.count - count < room { grow(toFit: count + room) }
        let start = count
        count = start + storage.withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
    }

    /// Capacity doubles, as an array's does, but only the next stretch of it is zeroed
    /// (at most ``zeroedStretch`` beyond what is needed): zeroing the whole of it made
    /// every doubled page resident at once, where untouched capacity costs no memory
    /// (an ingest's update of a million records is hundreds of megabytes).
    private mutating func grow(toFit needed: Int) {
        if storage.capacity < needed { storage.reserveCapacity(Swift.max(needed, storage.capacity * 2)) }
        let room = Swift.min(storage.capacity, Swift.max(needed, storage.count + Self.zeroedStretch))
        // Copied from a block of zeros (one memcpy): appending `repeatElement(0, …)` went
        // byte by byte.
        while storage.count < room {
            storage.append(contentsOf: Self.zeros[..<Swift.min(room - storage.count, Self.zeros.count)])
        }
    }

    static let zeroedStretch = 1 << 16
    private static let zeros = [UInt8](repeating: 0, count: zeroedStretch)

    @inline(__always)
    public mutating func writeUInt8(_ value: UInt8) {
        if count == storage.count { grow(toFit: count + 1) }
        storage[count] = value
        count += 1
    }

    public mutating func writeRaw<C: Collection>(_ raw: C) where C.Element == UInt8 {
        let written: Void? = raw.withContiguousStorageIfAvailable { writeRaw(buffer: $0) }
        if written == nil {
            let n = raw.count
            write(atMost: n) { p in
                var i = 0
                for byte in raw.prefix(n) { p[i] = byte; i += 1 }
                return i
            }
        }
    }

    /// Stores `buffer`'s bytes (one copy of the whole run).
    private mutating func writeRaw(buffer: UnsafeBufferPointer<UInt8>) {
        guard let source = buffer.baseAddress, buffer.count > 0 else { return }
        write(atMost: buffer.count) { p in
            p.update(from: source, count: buffer.count)
            return buffer.count
        }
    }

    /// Little-endian base-128, 7 bits per byte, 0x80 marks "more follows". The one-byte
    /// case (most lengths, clocks of small documents, info bytes' neighbours) is inlined
    /// into its callers: an update writes several of these per item.
    @inline(__always)
    public mutating func writeVarUInt(_ value: UInt64) {
        if value < 0x80 {
            writeUInt8(UInt8(truncatingIfNeeded: value))
            return
        }
        writeLongVarUInt(value)
    }

    private mutating func writeLongVarUInt(_ value: UInt64) {
        write(atMost: 10) { p in Self.storeVarUInt(value, at: p) }
    }

    /// Stores `value` as a var-uint at `p` (room for 10 bytes); returns the bytes stored.
    @inline(__always)
    private static func storeVarUInt(_ value: UInt64, at p: UnsafeMutablePointer<UInt8>) -> Int {
        var v = value
        var i = 0
        while v > 0x7f {
            p[i] = UInt8(truncatingIfNeeded: v) | 0x80
            v >>= 7
            i += 1
        }
        p[i] = UInt8(truncatingIfNeeded: v)
        return i + 1
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
        writeUInt8(first)
        guard magnitude > 0 else { return }
        write(atMost: 10) { p in Self.storeVarUInt(magnitude, at: p) }
    }

    /// `varUint(utf8 count) · utf8`.
    public mutating func writeVarString(_ string: String) {
        var s = string
        s.withUTF8 { utf8 in
            // The length and the text in one write.
            write(atMost: 10 + utf8.count) { p in
                let n = Self.storeVarUInt(UInt64(utf8.count), at: p)
                if let source = utf8.baseAddress { (p + n).update(from: source, count: utf8.count) }
                return n + utf8.count
            }
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
        write(atMost: length) { p in
            var i = 0
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
                // Bounded by the first pass's count, which the room was made for.
                precondition(i + scalarLength(scalar) <= length, "UTF-16 units changed between the two passes")
                switch scalar {
                case 0..<0x80:
                    p[i] = UInt8(scalar)
                    i += 1
                case 0x80..<0x800:
                    p[i] = UInt8(0xC0 | scalar >> 6)
                    p[i + 1] = UInt8(0x80 | scalar & 0x3F)
                    i += 2
                case 0x800..<0x10000:
                    p[i] = UInt8(0xE0 | scalar >> 12)
                    p[i + 1] = UInt8(0x80 | (scalar >> 6) & 0x3F)
                    p[i + 2] = UInt8(0x80 | scalar & 0x3F)
                    i += 3
                default:
                    p[i] = UInt8(0xF0 | scalar >> 18)
                    p[i + 1] = UInt8(0x80 | (scalar >> 12) & 0x3F)
                    p[i + 2] = UInt8(0x80 | (scalar >> 6) & 0x3F)
                    p[i + 3] = UInt8(0x80 | scalar & 0x3F)
                    i += 4
                }
            }
            return i
        }
    }

    /// `varUint(count) · bytes`.
    public mutating func writeVarBytes<C: Collection>(_ data: C) where C.Element == UInt8 {
        writeVarUInt(UInt64(data.count))
        writeRaw(data)
    }

    public mutating func writeFloat32(_ value: Float) { writeBigEndian(UInt64(value.bitPattern), width: 4) }
    public mutating func writeFloat64(_ value: Double) { writeBigEndian(value.bitPattern, width: 8) }
    public mutating func writeInt64(_ value: Int64) { writeBigEndian(UInt64(bitPattern: value), width: 8) }

    private mutating func writeBigEndian(_ value: UInt64, width: Int) {
        write(atMost: width) { p in
            for i in 0..<width { p[i] = UInt8(truncatingIfNeeded: value >> UInt64((width - 1 - i) * 8)) }
            return width
        }
    }
}
