/// An update of the shape almost every update has (at most one writer; text, deleted
/// content, GC and Skip structs; items in a root or next to their origins), decoded into
/// flat arrays of plain values.
///
/// ``DecodedUpdate`` builds an enum value, an array and often a string per struct, and
/// tearing those down again costs as much as integrating them. Here a struct is one
/// trivially copyable ``Entry``, all text shares one buffer and the delete set is one
/// array: a few allocations per update.
///
/// `init?` returns nil for anything outside that shape, and for anything malformed: the
/// caller then takes the general path, which reports the error. Client ids above
/// ``ID/maxSafeClient`` are outside the shape too, so the general path decides on them. So it accepts only what
/// ``DecodedUpdate/decode(_:)`` and ``Doc/validate(_:)`` accept, with the same limits.
struct CompactUpdate {
    /// One struct. `kind` is the wire's content ref (0 GC, 1 Deleted, 4 String) or 10 (Skip).
    struct Entry {
        var kind: UInt8
        var clock: UInt32
        var length: UInt32
        var hasOrigin = false
        var hasRightOrigin = false
        var originClient: ClientID = 0
        var originClock: UInt32 = 0
        var rightOriginClient: ClientID = 0
        var rightOriginClock: UInt32 = 0
        /// Index in ``CompactUpdate/rootNames`` of the parent root, or -1 (the item has origins).
        var rootName: Int32 = -1
        /// Start of a String item's units in ``CompactUpdate/units``.
        var textStart: UInt32 = 0
    }

    struct DeleteRange {
        var client: ClientID
        var clock: UInt32
        var length: UInt32
    }

    /// The writer of `entries` (meaningless when there are none).
    var client: ClientID = 0
    var entries: ContiguousArray<Entry> = []
    /// The text of String entries (`units[0..<unitCount]`; the rest is scratch space).
    var units: ContiguousArray<UInt16> = []
    var unitCount = 0
    var rootNames: [String] = []
    /// The delete set in wire order, empty ranges dropped.
    var deletes: ContiguousArray<DeleteRange> = []

    /// Updates up to this size are decoded into a document's kept buffers (about a page
    /// of text; a keystroke's update is a few dozen bytes).
    static let reusedBufferLimit = 4096

    /// An empty update, whose buffers ``decode(_:)`` fills.
    init() {}

    init?(_ bytes: [UInt8]) {
        guard decode(bytes) else { return nil }
    }

    /// Replaces the contents with `bytes` decoded, reusing the buffers' capacity (a
    /// document keeps one for the small updates it applies: allocating and freeing them
    /// cost a tenth of applying a keystroke's update). False, leaving meaningless
    /// contents, for anything outside the compact shape or malformed.
    mutating func decode(_ bytes: [UInt8]) -> Bool {
        client = 0
        entries.removeAll(keepingCapacity: true)
        deletes.removeAll(keepingCapacity: true)
        if !rootNames.isEmpty { rootNames = [] }
        // Text never has more UTF-16 units than the update has bytes: every UTF-8 byte
        // decodes to at most one unit (a 4-byte sequence to two). So `units` holds at
        // least that many before the parse, which then writes into it without capacity
        // checks; `unitCount` says how many it wrote. Kept buffers are mostly big enough
        // already; otherwise one is allocated (and zeroed, one memset).
        if units.count < bytes.count {
            units = ContiguousArray(unsafeUninitializedCapacity: bytes.count) { buffer, count in
                buffer.initialize(repeating: 0)
                count = bytes.count
            }
        }
        // (Moved out while the parse, which mutates the rest of `self`, writes into it.)
        var text: ContiguousArray<UInt16> = []
        swap(&text, &units)
        var ok = false
        var written = 0
        text.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in
                var p = Cursor(input)
                do throws(Malformed) {
                    try parse(&p, into: out, written: &written)
                    ok = p.isAtEnd
                } catch {}
            }
        }
        units = text
        unitCount = written
        return ok
    }

    /// Thrown by the parse for anything outside the compact shape or malformed: no
    /// message, as the general path then decodes the update again and reports it.
    private struct Malformed: Error {}

    /// The parse, writing text units to `out[written...]`. Invariant: `written` never
    /// exceeds the number of bytes consumed, so it stays within `out` (`bytes.count`).
    private mutating func parse(_ p: inout Cursor, into out: UnsafeMutableBufferPointer<UInt16>,
                                written: inout Int) throws(Malformed) {
        let groupCount = try p.count(minElementSize: 3)
        guard groupCount <= 1 else { throw Malformed() }
        if groupCount == 1 {
            let structCount = try p.count(minElementSize: 2)
            client = try p.varUInt()
            // Larger ids take the general path, which alone decides on them (strictClientIDs).
            guard client <= ID.maxSafeClient else { throw Malformed() }
            var clock = try p.varUInt(max: UInt64(ID.maxClock))
            entries.reserveCapacity(structCount)
            for _ in 0..<structCount {
                let entry = try readEntry(clock: UInt32(clock), from: &p, into: out, written: &written)
                clock += UInt64(entry.length)
                guard clock <= ID.maxClock else { throw Malformed() }
                entries.append(entry)
            }
        }
        let clientCount = try p.count(minElementSize: 2)
        for _ in 0..<clientCount {
            let deleter = try p.varUInt()
            guard deleter <= ID.maxSafeClient else { throw Malformed() }
            let n = try p.count(minElementSize: 2)
            for _ in 0..<n {
                let clock = try p.varUInt(max: UInt64(ID.maxClock))
                let length = try p.varUInt(max: UInt64(ID.maxClock) - clock)
                if length > 0 { deletes.append(DeleteRange(client: deleter, clock: UInt32(clock), length: UInt32(length))) }
            }
        }
    }

    /// One struct; throws when it is outside the compact shape or fails ``Doc/validate(_:)``.
    private mutating func readEntry(clock: UInt32, from p: inout Cursor, into out: UnsafeMutableBufferPointer<UInt16>,
                                    written: inout Int) throws(Malformed) -> Entry {
        let info = try p.byte()
        switch info & 0x1f {
        case 0, 10:
            guard info & 0xe0 == 0 else { throw Malformed() }
            let n = try p.varUInt(max: UInt64(ID.maxClock))
            guard n > 0 else { throw Malformed() }
            return Entry(kind: info, clock: clock, length: UInt32(n))
        case 1, 4:
            // A map key (0x20) needs the general path.
            guard info & 0x20 == 0 else { throw Malformed() }
            var entry = Entry(kind: info & 0x1f, clock: clock, length: 0)
            if info & 0x80 != 0 {
                let c = try p.varUInt()
                let k = try p.varUInt(max: UInt64(ID.maxClock))
                // The origin of an item of the same client must come before it.
                guard c != client || k < UInt64(clock), c <= ID.maxSafeClient else { throw Malformed() }
                entry.hasOrigin = true
                entry.originClient = c
                entry.originClock = UInt32(k)
            }
            if info & 0x40 != 0 {
                let c = try p.varUInt()
                let k = try p.varUInt(max: UInt64(ID.maxClock))
                guard c != client || k < UInt64(clock), c <= ID.maxSafeClient else { throw Malformed() }
                entry.hasRightOrigin = true
                entry.rightOriginClient = c
                entry.rightOriginClock = UInt32(k)
            }
            if !entry.hasOrigin && !entry.hasRightOrigin {
                // Only a root parent: an item parent needs the general path.
                guard try p.varUInt() == 1 else { throw Malformed() }
                entry.rootName = Int32(rootNames.count)
                rootNames.append(try p.string())
            }
            if entry.kind == 1 {
                let n = try p.varUInt(max: UInt64(ID.maxClock))
                guard n > 0 else { throw Malformed() }
                entry.length = UInt32(n)
            } else {
                let start = written
                try p.utf16(into: out, written: &written)
                guard written > start, written <= Int(UInt32.max) else { throw Malformed() }
                entry.textStart = UInt32(start)
                entry.length = UInt32(written - start)
            }
            return entry
        default:
            throw Malformed()
        }
    }

    /// A read position in the update, with lib0 reads that check the end before every
    /// byte they touch: the unchecked buffer accesses below are in bounds because of
    /// those checks. Same limits as ``ByteReader``.
    private struct Cursor {
        let base: UnsafePointer<UInt8>?
        let end: Int
        var pos = 0

        init(_ input: UnsafeBufferPointer<UInt8>) {
            base = input.baseAddress
            end = input.count
        }

        var isAtEnd: Bool { pos == end }

        @inline(__always)
        mutating func byte() throws(Malformed) -> UInt8 {
            guard pos < end, let base else { throw Malformed() }
            let b = base[pos]
            pos += 1
            return b
        }

        /// ``ByteReader/readVarUInt()``.
        @inline(__always)
        mutating func varUInt() throws(Malformed) -> UInt64 {
            let first = try byte()
            if first < 0x80 { return UInt64(first) }
            var result = UInt64(first & 0x7f)
            var shift: UInt64 = 7
            while true {
                let b = try byte()
                if shift == 63 && b > 1 { throw Malformed() }
                result |= UInt64(b & 0x7f) << shift
                if b < 0x80 { return result }
                shift += 7
                if shift > 63 { throw Malformed() }
            }
        }

        @inline(__always)
        mutating func varUInt(max limit: UInt64) throws(Malformed) -> UInt64 {
            let v = try varUInt()
            guard v <= limit else { throw Malformed() }
            return v
        }

        /// ``ByteReader/readCount(minElementSize:_:)``.
        mutating func count(minElementSize: Int) throws(Malformed) -> Int {
            let v = try varUInt()
            guard v <= UInt64((end - pos) / minElementSize) else { throw Malformed() }
            return Int(v)
        }

        /// ``ByteReader/readVarString()``.
        mutating func string() throws(Malformed) -> String {
            let n = try count(minElementSize: 1)
            guard let base else { throw Malformed() }  // n is 0 here: there is no input
            let s = String(validating: UnsafeBufferPointer(start: base + pos, count: n), as: UTF8.self)
            pos += n
            guard let s else { throw Malformed() }
            return s
        }

        /// ``ByteReader/readVarStringUTF16()``, writing the units to `out[written...]`.
        /// The string's `n` bytes give at most `n` units, so with `written` at most the
        /// bytes consumed before it, every store stays below `pos + n <= end <= out.count`.
        mutating func utf16(into out: UnsafeMutableBufferPointer<UInt16>, written: inout Int) throws(Malformed) {
            let n = try count(minElementSize: 1)
            guard n > 0 else { return }
            guard let src = base, let dst = out.baseAddress else { throw Malformed() }
            var i = pos
            let stop = pos + n
            var o = written
            while i < stop {
                // ASCII, nearly all text, eight bytes at a time.
                while i + 8 <= stop {
                    let word = UnsafeRawPointer(src + i).loadUnaligned(as: UInt64.self)
                    guard word & 0x8080_8080_8080_8080 == 0 else { break }
                    for k in 0..<8 { dst[o + k] = UInt16(src[i + k]) }
                    i += 8
                    o += 8
                }
                guard i < stop else { break }
                let b0 = src[i]
                if b0 < 0x80 {
                    dst[o] = UInt16(b0)
                    i += 1
                    o += 1
                    continue
                }
                guard let (scalar, length) = StrictUTF8.scalar(at: i, end: stop, byte: { src[$0] }) else {
                    throw Malformed()
                }
                if scalar >= 0x10000 {
                    // Four bytes in, two units out.
                    let v = scalar - 0x10000
                    dst[o] = UInt16(0xD800 + (v >> 10))
                    dst[o + 1] = UInt16(0xDC00 + (v & 0x3FF))
                    o += 2
                } else {
                    dst[o] = UInt16(scalar)
                    o += 1
                }
                i += length
            }
            pos = stop
            written = o
        }
    }

    /// The entry as a general struct (for the general path, when something it needs is missing).
    func updateStruct(_ e: Entry) -> UpdateStruct { updateStruct(e, units: units) }

    /// ``updateStruct(_:)`` with this update's text in `units` (moved out of ``units``).
    func updateStruct(_ e: Entry, units: ContiguousArray<UInt16>) -> UpdateStruct {
        let id = ID(client: client, clock: Int(e.clock))
        switch e.kind {
        case 0: return .gc(id, length: Int(e.length))
        case 10: return .skip(id, length: Int(e.length))
        default:
            let content: StructContent = e.kind == 1
                ? .deleted(length: Int(e.length))
                : .string(Array(units[Int(e.textStart)..<Int(e.textStart + e.length)]))
            return .item(UpdateItem(
                id: id,
                origin: e.hasOrigin ? ID(client: e.originClient, clock: Int(e.originClock)) : nil,
                rightOrigin: e.hasRightOrigin ? ID(client: e.rightOriginClient, clock: Int(e.rightOriginClock)) : nil,
                parent: e.rootName >= 0 ? .root(rootNames[Int(e.rootName)]) : nil,
                parentSub: nil, hasParentSub: false, content: content))
        }
    }
}
