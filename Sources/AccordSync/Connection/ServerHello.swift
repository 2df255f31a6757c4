public import AccordCRDT

/// What the server announced in its `hello`, the first frame on a connection.
public struct ServerHello: Hashable, Sendable {
    public var serverVersion: String
    public var maxFrameBytes: UInt64
    /// The server's heartbeat interval; 0 means the server did not say (use the default).
    public var heartbeatSeconds: UInt64

    public init(serverVersion: String, maxFrameBytes: UInt64, heartbeatSeconds: UInt64) {
        self.serverVersion = serverVersion
        self.maxFrameBytes = maxFrameBytes
        self.heartbeatSeconds = heartbeatSeconds
    }

    /// The hello inside an Accord message, or nil for any other message.
    public init?(_ message: AccordMessage) {
        guard case .hello(let version, let maxFrame, let heartbeat) = message else { return nil }
        self.init(serverVersion: version, maxFrameBytes: maxFrame, heartbeatSeconds: heartbeat)
    }
}
