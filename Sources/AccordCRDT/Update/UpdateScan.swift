/// One update v1 read for its shape only: where each client's structs start and end,
/// which other clients' content they point at, and whether its delete set deletes
/// anything. Nothing is built per struct (no ``UpdateStruct``, no strings or values),
/// so a scan costs a small fraction of decoding: it is what lets
/// ``concatenateUpdates(base:appending:)`` join a document's updates without replaying them.
///
/// It checks what ``DecodedUpdate/decode(_:)`` and ``Doc/validate(_:)`` check, with the
/// same limits, and fails where they throw. Skip structs fail it too: an update with a
/// gap in it is not of the shape that can be joined.
struct UpdateScan {
    /// The structs of one client group: clocks `start..<end`, in `bytes` of the update.
    struct Run {
        var client: ClientID
        var start: Int
        var end: Int
        var structCount: Int
        var bytes: Range<Int>
        /// Whether the first struct could be joined onto the one before it by a document
        /// (Yjs's `mergeWith`): an item of joinable content (deleted, JSON, string, any)
        /// outside a map, whose origin is the clock just before it. A document replaying
        /// the updates would hold the two as one struct; the joined update would hold two.
        var firstMayJoinLeft: Bool
    }

    private(set) var runs: [Run] = []
    /// The delete set, as it is in the update (it ends the update).
    private(set) var deleteSet: Range<Int> = 0..<0
    /// Whether the delete set has a range of nonzero length.
    private(set) var deletes = false
    /// For every other client the structs point at (as origin, right origin or parent),
    /// the highest clock they point at.
    private(set) var references: [ClientID: Int] = [:]

    /// Nil when `bytes` are not a well-formed update, or hold a Skip struct.
    init?(_ bytes: [UInt8]) {
        var r = ByteReader(bytes)
        do throws(AccordError) {
            try scanStructs(&r)
            let start = r.position
            try scanDeleteSet(&r)
            guard r.isAtEnd else { return nil }
            deleteSet = start..<r.position
        } catch {
            return nil
        }
    }

    /// Thrown for a Skip struct (well formed, but outside the shape).
    private static func gap(_ r: ByteReader) -> AccordError { r.error("Skip struct") }

    private mutating func scanStructs(_ r: inout ByteReader) throws(AccordError) {
        let groupCount = try r.readCount(minElementSize: 3, "client group count")
        runs.reserveCapacity(groupCount)
        for _ in 0..<groupCount {
            let structCount = try r.readCount(minElementSize: 2, "struct count")
            let client = try r.readVarUInt()
            let start = try r.readVarUInt(max: UInt64(ID.maxClock), "clock")
            let first = r.position
            var clock = start
            var firstMayJoinLeft = false
            for index in 0..<structCount {
                let (length, joins) = try scanStruct(client: client, clock: clock, &r)
                if index == 0 { firstMayJoinLeft = joins }
                clock += length
                guard clock <= ID.maxClock else { throw r.error("clock overflows 32 bits") }
            }
            runs.append(Run(client: client, start: start, end: clock, structCount: structCount,
                            bytes: first..<r.position, firstMayJoinLeft: firstMayJoinLeft))
        }
    }

    /// One struct: its length, and whether a document could join it onto its left.
    private mutating func scanStruct(client: ClientID, clock: Int, _ r: inout ByteReader) throws(AccordError) -> (Int, Bool) {
        let info = try r.readUInt8()
        switch info & 0x1f {
        case 0:
            guard info == 0 else { throw r.error("GC struct with flags") }
            let n = try r.readVarUInt(max: UInt64(ID.maxClock), "GC length")
            guard n > 0 else { throw r.error("GC struct of length 0") }
            return (n, false)
        case 10:
            throw Self.gap(r)
        default:
            var originIsLeftNeighbour = false
            if info & 0x80 != 0 {
                let origin = try ID.read(from: &r)
                try refer(to: origin, from: client, clock, &r)
                originIsLeftNeighbour = origin.client == client && origin.clock == clock - 1
            }
            if info & 0x40 != 0 { try refer(to: try ID.read(from: &r), from: client, clock, &r) }
            if info & 0xc0 == 0 {
                switch try r.readVarUInt() {
                case 1: try r.skipVarString()
                case 0: try refer(to: try ID.read(from: &r), from: client, clock, &r)
                case let other: throw r.error("invalid parent info \(other)")
                }
                if info & 0x20 != 0 { try r.skipVarString() }
            }
            let ref = info & 0x1f
            let length = try Self.scanContent(ref: ref, &r)
            let joinable = ref == 1 || ref == 2 || ref == 4 || ref == 8
            return (length, joinable && originIsLeftNeighbour && info & 0x20 == 0)
        }
    }

    /// Notes a reference from the item at `clock` of `client`; one to the same client
    /// must point before the item (``Doc/validate(_:)``).
    private mutating func refer(to id: ID, from client: ClientID, _ clock: Int, _ r: inout ByteReader) throws(AccordError) {
        if id.client == client {
            guard id.clock < clock else { throw r.error("item (\(client), \(clock)) points at itself or after itself") }
        } else if id.clock > references[id.client, default: -1] {
            references[id.client] = id.clock
        }
    }

    /// Passes over an item's content (``StructContent/read(ref:from:)``), returning its length.
    private static func scanContent(ref: UInt8, _ r: inout ByteReader) throws(AccordError) -> Int {
        switch ref {
        case 1:
            let n = try r.readVarUInt(max: UInt64(ID.maxClock), "deleted length")
            guard n > 0 else { throw r.error("deleted content of length 0") }
            return n
        case 2:
            let n = try r.readCount("JSON content count")
            for _ in 0..<n { try checkJSON(&r) }
            guard n > 0 else { throw r.error("empty JSON content") }
            return n
        case 3:
            try r.skip(count: try r.readCount("byte array length"))
        case 4:
            let units = try r.skipVarStringCountingUTF16()
            guard units > 0 else { throw r.error("empty string content") }
            return units
        case 5:
            try checkJSON(&r)
        case 6:
            try r.skipVarString()
            try checkJSON(&r)
        case 7:
            switch try r.readVarUInt(max: 255, "type ref") {
            case 0, 1, 2, 4, 6, 7, 15: break
            case 3, 5: try r.skipVarString()
            case let other: throw r.error("unknown type ref \(other)")
            }
        case 8:
            let n = try r.readCount("any content count")
            guard n > 0 else { throw r.error("empty any content") }
            for _ in 0..<n { try AnyValue.skip(from: &r) }
            return n
        case 9:
            try r.skipVarString()
            try AnyValue.skip(from: &r)
        default:
            throw r.error("unknown content ref \(ref)")
        }
        return 1
    }

    /// A string of JSON text, parsed (rare content: only old Yjs writes it).
    private static func checkJSON(_ r: inout ByteReader) throws(AccordError) {
        let text = try r.readVarString()
        do { _ = try AnyValue(jsonText: text) } catch { throw r.error("invalid JSON in content: \(error.message)") }
    }

    private mutating func scanDeleteSet(_ r: inout ByteReader) throws(AccordError) {
        let count = try r.readCount(minElementSize: 2, "delete set size")
        for _ in 0..<count {
            _ = try r.readVarUInt()
            let n = try r.readCount(minElementSize: 2, "delete range count")
            for _ in 0..<n {
                let clock = try r.readVarUInt(max: UInt64(ID.maxClock), "clock")
                let length = try r.readVarUInt(max: UInt64(ID.maxClock - clock), "delete length")
                if length > 0 { deletes = true }
            }
        }
    }
}
