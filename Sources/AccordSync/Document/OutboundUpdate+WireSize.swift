public import AccordStore

extension OutboundUpdate {
    /// The bytes of this update's `/v1/sync` message (envelope, outer type 100, subtype,
    /// id, sequence, update), counted without encoding it: compared with the server's
    /// frame limit before every send, so it must not copy the update.
    public func multiplexedSize(document: DocumentID) -> UInt64 {
        let id = UInt64(document.rawValue.utf8.count)
        let envelope = Self.varUIntSize(id) + id
        let header = Self.varUIntSize(100) + Self.varUIntSize(1) + Self.varUIntSize(id) + id + Self.varUIntSize(sequence)
        let count = UInt64(bytes.count)
        return envelope + header + Self.varUIntSize(count) + count
    }

    /// lib0 varUint: 7 bits per byte.
    static func varUIntSize(_ value: UInt64) -> UInt64 {
        var size: UInt64 = 1
        var rest = value >> 7
        while rest > 0 {
            size += 1
            rest >>= 7
        }
        return size
    }
}
