/// A connection's number within one server (``AccordNet/WebSocketConnection/id``).
public typealias ConnectionID = UInt64
