public import AccordCRDT

extension ErrorCode {
    /// The server did not answer within its budget (a sync handshake, a load from the
    /// network). Transient: the engine keeps retrying on its own.
    public static let networkTimeout = ErrorCode(rawValue: "NETWORK_TIMEOUT")

    /// ``AccordClient/withDocument(_:_:)`` names a document that is not open in the client.
    public static let documentNotOpen = ErrorCode(rawValue: "DOCUMENT_NOT_OPEN")

    /// A document was asked for from the network (`waitForLoad: .network`, or
    /// `.localElseNetwork` with no local copy, or `resync`) while the client is offline:
    /// refused at once rather than waiting for a connection that may never come.
    public static let documentUnavailableOffline = ErrorCode(rawValue: "DOCUMENT_UNAVAILABLE_OFFLINE")

    /// An option that needs the server was asked of a local-only document.
    public static let localOnlyUnsupportedOption = ErrorCode(rawValue: "LOCAL_ONLY_UNSUPPORTED_OPTION")

    /// What was waited for did not happen in time (``AccordClient/nextEvent(_:timeout:where:)``).
    public static let unavailable = ErrorCode(rawValue: "UNAVAILABLE")

    /// A call to the server's REST API never got an answer: the server was unreachable
    /// (offline, refused, unknown host) or the connection broke. Retry later; compare a
    /// server's refusal, which carries the server's own code and ``AccordError/httpStatus``.
    /// `details["netCode"]` names the transport's reason (`NET_CONNECT_FAILED`, ...).
    public static let networkError = ErrorCode(rawValue: "NETWORK_ERROR")

    /// The server answered a REST call with something that is not the API's JSON (a
    /// proxy's error page, a body of the wrong shape). `httpStatus` is set.
    public static let unexpectedResponse = ErrorCode(rawValue: "UNEXPECTED_RESPONSE")

    /// A blob was read with `waitForLoad: .local` and is not on this device, or needs
    /// downloading while the client is pinned offline. `details["blob"]` names it.
    public static let blobUnavailableOffline = ErrorCode(rawValue: "BLOB_UNAVAILABLE_OFFLINE")

    /// The client refused the server's TLS certificate (`wss://`, `https://`): it does not
    /// chain to an authority the client trusts (the system's, or `trustedCertificatesFile`),
    /// names another host, or has expired. Reported as a `connectionError` at each failed
    /// attempt (the client keeps retrying with backoff) and for REST calls;
    /// `details["netCode"]` is `NET_TLS_CERTIFICATE_INVALID`, the message has OpenSSL's reason.
    public static let tlsCertificateInvalid = ErrorCode(rawValue: "TLS_CERTIFICATE_INVALID")

    /// Every code defined by AccordSync, for golden tests and documentation.
    public static let allSyncCodes: [ErrorCode] = [
        .networkTimeout, .documentNotOpen, .documentUnavailableOffline, .localOnlyUnsupportedOption, .unavailable,
        .networkError, .unexpectedResponse, .blobUnavailableOffline, .tlsCertificateInvalid,
    ]
}
