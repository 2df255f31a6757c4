public import AccordCRDT
public import AccordStore

/// What a ``Session`` asks its driver to do.
public enum SessionAction: Hashable, Sendable {
    /// Send these bytes on the connection.
    case send([UInt8])
    /// Send these bytes, which carry a coded Accord `error` (counted in the metrics).
    case sendError([UInt8], ErrorCode)
    /// A coded error the client cannot read (``SyncDialect/yProtocols``): count it in
    /// the metrics, send nothing.
    case countError(ErrorCode)
    /// Close the connection with a WebSocket close code (after what was queued).
    case close(code: UInt16, reason: String)
    /// Resolve access to `document` (permissions, create-on-connect, load the room) and
    /// report the outcome with ``Session/joined(_:outcome:then:now:)``; `then` is the
    /// frame that asked for it, to deliver once joined.
    case join(DocumentID, then: ProtocolFrame?)
    /// Hand a frame to the document's room.
    case deliver(DocumentID, ProtocolFrame)
    /// Take the connection out of the document's room.
    case leave(DocumentID)
    /// A checked channel request for the server's ``ChannelRegistry``: `attach`,
    /// `detach`, `sync`, or `broadcast` with the sender set to the user.
    case channel(ChannelMessage)
}

/// WebSocket close codes the server uses. 4000–4999 are the application's range; the
/// last three digits follow the HTTP status they resemble.
public enum SyncCloseCode {
    public static let malformed: UInt16 = 4400
    public static let unauthenticated: UInt16 = 4401
    public static let forbidden: UInt16 = 4403
    public static let notFound: UInt16 = 4404
    /// `SLOW_CONSUMER`: the client stopped reading (408: it did not take what was sent in time).
    public static let slowConsumer: UInt16 = 4408
    /// A per-user cap refused the connection or its only document.
    public static let tooManyRequests: UInt16 = 4429
    public static let unavailable: UInt16 = 4503
}
