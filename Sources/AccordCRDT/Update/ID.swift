/// A client's 32-bit (decoded as 64-bit) identifier. Yjs draws a random uint32.
public typealias ClientID = UInt64

/// The identity of one unit of content: the client that made it and that client's clock.
public struct ID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var client: ClientID
    public var clock: Int

    public init(client: ClientID, clock: Int) {
        self.client = client
        self.clock = clock
    }

    public static func < (a: ID, b: ID) -> Bool {
        a.client != b.client ? a.client < b.client : a.clock < b.clock
    }

    public var description: String { "\(client):\(clock)" }

    /// Clocks and lengths are bounded so that `clock + length` always fits in 32 bits:
    /// no real document comes near, and it keeps stored items compact.
    public static let maxClock = Int(UInt32.max)

    /// 2^53 − 1, the largest client id JavaScript Yjs reads exactly (lib0 decodes
    /// varUints into doubles). A peer writing with a larger id has its edits silently
    /// lost for JS peers, so a ``Doc`` with ``Doc/strictClientIDs`` refuses them.
    public static let maxSafeClient: ClientID = 9_007_199_254_740_991

    func write(to w: inout ByteWriter) {
        w.writeVarUInt(client)
        w.writeVarUInt(clock)
    }

    static func read(from r: inout ByteReader) throws(AccordError) -> ID {
        let client = try r.readVarUInt()
        let clock = try r.readVarUInt(max: UInt64(maxClock), "clock")
        return ID(client: client, clock: clock)
    }
}
