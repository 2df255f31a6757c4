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
/// caller then takes the general path, which reports the error. So it accepts only what
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
    var units: ContiguousArray<UInt16> = []
    var rootNames: [String] = []
    /// The delete set in wire order, empty ranges dropped.
    var deletes: ContiguousArray<DeleteRange> = []

    init?(_ bytes: [UInt8]) {
        var r = ByteReader(bytes)
        // Text never has more UTF-16 units than the update has bytes.
        units.reserveCapacity(bytes.count)
        do throws(AccordError) {
            let groupCount = try r.readCount(minElementSize: 3, "client group count")
            guard groupCount <= 1 else { return nil }
            if groupCount == 1 {
                let structCount = try r.readCount(minElementSize: 2, "struct count")
                client = try r.readVarUInt()
                var clock = try r.readVarUInt(max: UInt64(ID.maxClock), "clock")
                entries.reserveCapacity(structCount)
                for _ in 0..<structCount {
                    guard let entry = try readEntry(clock: UInt32(clock), from: &r) else { return nil }
                    clock += Int(entry.length)
                    guard clock <= ID.maxClock else { return nil }
                    entries.append(entry)
                }
            }
            let clientCount = try r.readCount(minElementSize: 2, "delete set size")
            for _ in 0..<clientCount {
                let deleter = try r.readVarUInt()
                let n = try r.readCount(minElementSize: 2, "delete range count")
                for _ in 0..<n {
                    let clock = try r.readVarUInt(max: UInt64(ID.maxClock), "clock")
                    let length = try r.readVarUInt(max: UInt64(ID.maxClock - clock), "delete length")
                    if length > 0 { deletes.append(DeleteRange(client: deleter, clock: UInt32(clock), length: UInt32(length))) }
                }
            }
            guard r.isAtEnd else { return nil }
        } catch {
            return nil
        }
    }

    /// One struct, or nil when it is outside the compact shape or fails ``Doc/validate(_:)``.
    private mutating func readEntry(clock: UInt32, from r: inout ByteReader) throws(AccordError) -> Entry? {
        let info = try r.readUInt8()
        switch info & 0x1f {
        case 0, 10:
            guard info & 0xe0 == 0 else { return nil }
            let n = try r.readVarUInt(max: UInt64(ID.maxClock), "length")
            guard n > 0 else { return nil }
            return Entry(kind: info, clock: clock, length: UInt32(n))
        case 1, 4:
            // A map key (0x20) needs the general path.
            guard info & 0x20 == 0 else { return nil }
            var entry = Entry(kind: info & 0x1f, clock: clock, length: 0)
            if info & 0x80 != 0 {
                let id = try ID.read(from: &r)
                // The origin of an item of the same client must come before it.
                guard id.client != client || id.clock < Int(clock) else { return nil }
                entry.hasOrigin = true
                entry.originClient = id.client
                entry.originClock = UInt32(id.clock)
            }
            if info & 0x40 != 0 {
                let id = try ID.read(from: &r)
                guard id.client != client || id.clock < Int(clock) else { return nil }
                entry.hasRightOrigin = true
                entry.rightOriginClient = id.client
                entry.rightOriginClock = UInt32(id.clock)
            }
            if !entry.hasOrigin && !entry.hasRightOrigin {
                // Only a root parent: an item parent needs the general path.
                guard try r.readVarUInt() == 1 else { return nil }
                entry.rootName = Int32(rootNames.count)
                rootNames.append(try r.readVarString())
            }
            if entry.kind == 1 {
                let n = try r.readVarUInt(max: UInt64(ID.maxClock), "deleted length")
                guard n > 0 else { return nil }
                entry.length = UInt32(n)
            } else {
                let start = units.count
                try r.readVarStringUTF16(appendingTo: &units)
                guard units.count > start, units.count <= Int(UInt32.max) else { return nil }
                entry.textStart = UInt32(start)
                entry.length = UInt32(units.count - start)
            }
            return entry
        default:
            return nil
        }
    }

    /// The entry as a general struct (for the general path, when something it needs is missing).
    func updateStruct(_ e: Entry) -> UpdateStruct {
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
