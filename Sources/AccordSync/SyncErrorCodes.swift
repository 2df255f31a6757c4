public import AccordCRDT

extension ErrorCode {
    /// The server did not answer within its budget (a sync handshake, a load from the
    /// network). Transient: the engine keeps retrying on its own.
    public static let networkTimeout = ErrorCode(rawValue: "NETWORK_TIMEOUT")

    /// ``AccordClient/withDocument(_:_:)`` names a document that is not open in the client.
    public static let documentNotOpen = ErrorCode(rawValue: "DOCUMENT_NOT_OPEN")

    /// Every code defined by AccordSync, for golden tests and documentation.
    public static let allSyncCodes: [ErrorCode] = [.networkTimeout, .documentNotOpen]
}
