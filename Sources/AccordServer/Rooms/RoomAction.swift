public import AccordCRDT

/// What a ``Room`` asks its driver to do. The room itself never touches a socket or
/// the store, so its rules are tested by feeding events and reading actions.
public enum RoomAction: Hashable, Sendable {
    /// Send `frame` about this room's document to one connection.
    case send(ConnectionID, ProtocolFrame)
    /// Send a coded error about this room's document to one connection.
    case error(ConnectionID, AccordError)
    /// Append `update` to the document's log. When the append is durable, the driver
    /// reports it with ``Room/persisted(storeSequence:update:)`` and
    /// ``Room/durable(through:now:)`` releases the ack, if any.
    case persist(update: [UInt8], from: ConnectionID, ack: PendingAck?)
    /// Tell a connection that its updates through `through` are durably stored.
    case ack(ConnectionID, through: UInt64)
    /// Awareness entries that changed here (an awareness update), for the other nodes
    /// of a cluster; nothing to do on a single node.
    case publishAwareness([UInt8])
    /// A broadcast a member sent here, for the other nodes of a cluster.
    case publishBroadcast(topic: String, payload: String, sender: String)
}

/// An update a client sent with an Accord sequence number, waiting to be durable.
public struct PendingAck: Hashable, Sendable {
    public var connection: ConnectionID
    public var sequence: UInt64
    public init(connection: ConnectionID, sequence: UInt64) {
        self.connection = connection
        self.sequence = sequence
    }
}
