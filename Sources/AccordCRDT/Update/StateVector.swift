/// For each client, the next clock this replica expects from it (all clocks below are known).
public struct StateVector: Hashable, Sendable, CustomStringConvertible {
    public var clocks: [ClientID: Int]

    public init(_ clocks: [ClientID: Int] = [:]) { self.clocks = clocks }

    public subscript(client: ClientID) -> Int {
        get { clocks[client] ?? 0 }
        set { clocks[client] = newValue }
    }

    public var description: String {
        "{" + clocks.sorted { $0.key > $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }

    /// `vu(n) · (vu(client) · vu(clock))*`, clients descending as Yjs writes them.
    public func encode() -> [UInt8] {
        var w = ByteWriter()
        write(to: &w)
        return w.takeBytes()
    }

    func write(to w: inout ByteWriter) {
        let entries = clocks.filter { $0.value > 0 }.sorted { $0.key > $1.key }
        w.writeVarUInt(entries.count)
        for (client, clock) in entries {
            w.writeVarUInt(client)
            w.writeVarUInt(clock)
        }
    }

    /// Decodes a state vector in any client order; throws ``ErrorCode/malformedUpdate``.
    public static func decode(_ bytes: [UInt8]) throws(AccordError) -> StateVector {
        var r = ByteReader(bytes)
        let sv = try read(from: &r)
        guard r.isAtEnd else { throw r.error("trailing bytes after state vector") }
        return sv
    }

    static func read(from r: inout ByteReader) throws(AccordError) -> StateVector {
        let count = try r.readCount(minElementSize: 2, "state vector size")
        var clocks: [ClientID: Int] = [:]
        clocks.reserveCapacity(count)
        for _ in 0..<count {
            let client = try r.readVarUInt()
            let clock = try r.readVarUInt(max: UInt64(ID.maxClock), "clock")
            clocks[client] = clock
        }
        return StateVector(clocks)
    }
}
