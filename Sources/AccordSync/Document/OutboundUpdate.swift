/// A local update waiting for the server's acknowledgement. `sequence` is the update's
/// store sequence number and is sent as the Accord `update` sequence unchanged, so the
/// server's cumulative `ack(through:)` maps straight to `DocumentStore.acknowledge(_:through:)`.
public struct OutboundUpdate: Hashable, Sendable {
    public var sequence: UInt64
    public var bytes: [UInt8]

    public init(sequence: UInt64, bytes: [UInt8]) {
        self.sequence = sequence
        self.bytes = bytes
    }
}
