/// Deleted clock ranges per client (design/yjs-wire-format.md section 3.1).
public struct DeleteSet: Hashable, Sendable {
    public struct Range: Hashable, Sendable {
        public var clock: Int
        public var length: Int
        public init(clock: Int, length: Int) {
            self.clock = clock
            self.length = length
        }
        public var end: Int { clock + length }
    }

    /// Ranges per client; after ``normalize()`` sorted by clock with no overlaps or touches.
    public var clients: [ClientID: [Range]]

    public init(_ clients: [ClientID: [Range]] = [:]) { self.clients = clients }

    // A closure, not `\.isEmpty`: a key path is built on every call, and every applied
    // update asks.
    public var isEmpty: Bool { clients.isEmpty || clients.values.allSatisfy { $0.isEmpty } }

    public mutating func add(client: ClientID, clock: Int, length: Int) {
        guard length > 0 else { return }
        clients[client, default: []].append(Range(clock: clock, length: length))
    }

    public func contains(_ id: ID) -> Bool {
        guard let ranges = clients[id.client] else { return false }
        // Binary search over sorted, merged ranges.
        var lo = 0, hi = ranges.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            let r = ranges[mid]
            if id.clock < r.clock { hi = mid - 1 } else if id.clock >= r.end { lo = mid + 1 } else { return true }
        }
        return false
    }

    /// Sorts each client's ranges and joins overlapping or touching ones.
    public mutating func normalize() {
        for (client, ranges) in clients {
            if ranges.isEmpty { clients[client] = nil; continue }
            clients[client] = Self.merged(ranges)
        }
    }

    static func merged(_ ranges: [Range]) -> [Range] {
        let sorted = ranges.sorted { $0.clock < $1.clock }
        var out: [Range] = []
        out.reserveCapacity(sorted.count)
        for r in sorted {
            if let last = out.last, r.clock <= last.end {
                out[out.count - 1].length = max(last.end, r.end) - last.clock
            } else {
                out.append(r)
            }
        }
        return out
    }

    public mutating func formUnion(_ other: DeleteSet) {
        for (client, ranges) in other.clients { clients[client, default: []].append(contentsOf: ranges) }
        normalize()
    }

    /// Clients descending, ranges ascending (what Yjs writes). Call on a normalized set.
    func write(to w: inout ByteWriter) {
        let entries = clients.filter { !$0.value.isEmpty }.sorted { $0.key > $1.key }
        w.writeVarUInt(entries.count)
        for (client, ranges) in entries {
            w.writeVarUInt(client)
            w.writeVarUInt(ranges.count)
            for r in ranges {
                w.writeVarUInt(r.clock)
                w.writeVarUInt(r.length)
            }
        }
    }

    static func read(from r: inout ByteReader) throws(AccordError) -> DeleteSet {
        let count = try r.readCount(minElementSize: 2, "delete set size")
        var ds = DeleteSet()
        for _ in 0..<count {
            let client = try r.readVarUInt()
            let n = try r.readCount(minElementSize: 2, "delete range count")
            var ranges: [Range] = []
            ranges.reserveCapacity(n)
            for _ in 0..<n {
                let clock = try r.readVarUInt(max: UInt64(ID.maxClock), "clock")
                let length = try r.readVarUInt(max: UInt64(ID.maxClock - clock), "delete length")
                if length > 0 { ranges.append(Range(clock: clock, length: length)) }
            }
            if !ranges.isEmpty { ds.clients[client, default: []].append(contentsOf: ranges) }
        }
        return ds
    }
}
