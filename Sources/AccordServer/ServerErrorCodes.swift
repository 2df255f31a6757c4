public import AccordCRDT

extension ErrorCode {
    /// The connection or request has no valid bearer token (missing, expired, forged).
    /// WebSockets are closed with code 4401 after this error.
    public static let unauthenticated = ErrorCode(rawValue: "UNAUTHENTICATED")
    /// The caller's role on the document does not allow the message or request.
    public static let permissionDenied = ErrorCode(rawValue: "PERMISSION_DENIED")
    /// REST: the caller may not see the document at all (HTTP 403).
    public static let docAccessDenied = ErrorCode(rawValue: "DOC_ACCESS_DENIED")
    /// The document could not be loaded from the store, so the join was refused; the
    /// stored document is untouched.
    public static let documentUnavailable = ErrorCode(rawValue: "DOCUMENT_UNAVAILABLE")
    /// A WebSocket frame is larger than the server's limit (see the hello message).
    public static let messageTooLarge = ErrorCode(rawValue: "MESSAGE_TOO_LARGE")
    /// Applying the update would take the document past the server's size limit; the
    /// update was refused and the document is unchanged.
    public static let documentTooLarge = ErrorCode(rawValue: "DOCUMENT_TOO_LARGE")
    /// An awareness update names a client id another connection of the room introduced
    /// (or the server's own); those entries were dropped. Distinct from
    /// `PERMISSION_DENIED`, which refuses a document's writes: a client that meets this
    /// keeps syncing the document.
    public static let awarenessClientTaken = ErrorCode(rawValue: "AWARENESS_CLIENT_TAKEN")
    /// The connection sent more messages than its rate allows; the message was dropped.
    public static let rateLimited = ErrorCode(rawValue: "RATE_LIMITED")
    /// The connection did not read what the server sent: its outbound queue passed the
    /// server's limit (`--max-queued-bytes`), so the queue was dropped and the
    /// connection closed with 4408. The close reason carries the code (the client is
    /// not reading, so no `error` message is sent); a client reconnects and resyncs.
    public static let slowConsumer = ErrorCode(rawValue: "SLOW_CONSUMER")

    /// The user already has as many open sync connections as the server allows; the
    /// new one was closed (4429) before joining anything.
    public static let tooManyConnections = ErrorCode(rawValue: "TOO_MANY_CONNECTIONS")
    /// The connection already has as many documents open as the server allows; this
    /// document was refused (leave another first).
    public static let tooManyRooms = ErrorCode(rawValue: "TOO_MANY_ROOMS")
    /// The user created as many documents in the last hour as the server allows; this
    /// one was not created (REST 429).
    public static let tooManyDocuments = ErrorCode(rawValue: "TOO_MANY_DOCUMENTS")
    /// The user's connections together hold as many bytes of partially received
    /// messages as the server allows; this message was discarded.
    public static let quotaExceeded = ErrorCode(rawValue: "QUOTA_EXCEEDED")

    /// A document's `metadata` is larger than the directory keeps (4 KB as compact JSON,
    /// REST 400); nothing was changed.
    public static let metadataTooLarge = ErrorCode(rawValue: "METADATA_TOO_LARGE")
    /// The document was deleted while the connection had it open: the server left it
    /// for the client (drop the local copy).
    public static let documentDeleted = ErrorCode(rawValue: "DOCUMENT_DELETED")

    /// The caller's alias already names a document (`createWithAlias`, REST 409).
    public static let aliasExists = ErrorCode(rawValue: "ALIAS_EXISTS")
    /// A user's root document is never shared, transferred or deleted (REST 403).
    public static let rootDocumentProtected = ErrorCode(rawValue: "ROOT_DOCUMENT_PROTECTED")

    /// A blob upload announces more bytes than the server's per-blob limit
    /// (`--max-blob-bytes`, REST 413); refused before any byte of the body is read.
    public static let blobTooLarge = ErrorCode(rawValue: "BLOB_TOO_LARGE")
    // BLOB_HASH_MISMATCH (REST 422: the bytes of an upload do not hash to the SHA-256
    // in its path; the upload, with every byte received for it, was discarded) is
    // AccordStore's `blobHashMismatch`, shared with the client, which reports it for a
    // download with wrong bytes.
    /// A continued blob upload (`Content-Range`) does not start where the server's
    /// unfinished upload ends (REST 409, `details.offset` = the bytes the server holds).
    public static let blobUploadOffsetMismatch = ErrorCode(rawValue: "BLOB_UPLOAD_OFFSET_MISMATCH")
    /// Another request is uploading the same blob to the same document right now
    /// (REST 409); retry once it ended (`HEAD` tells the offset).
    public static let blobUploadInProgress = ErrorCode(rawValue: "BLOB_UPLOAD_IN_PROGRESS")

    /// `GET /readyz`: the server's storage does not answer (PostgreSQL unreachable, a
    /// disk gone); REST 503, so a load balancer sends new connections elsewhere.
    public static let serverNotReady = ErrorCode(rawValue: "SERVER_NOT_READY")

    /// REST: no collection has that id (HTTP 404).
    public static let collectionNotFound = ErrorCode(rawValue: "COLLECTION_NOT_FOUND")
    /// REST: a collection with that id exists already (HTTP 409).
    public static let collectionExists = ErrorCode(rawValue: "COLLECTION_EXISTS")

    /// REST: the document has no access request with that id (HTTP 404).
    public static let accessRequestNotFound = ErrorCode(rawValue: "ACCESS_REQUEST_NOT_FOUND")
    /// REST: the access request was approved, denied or expired already (HTTP 409).
    public static let accessRequestResolved = ErrorCode(rawValue: "ACCESS_REQUEST_RESOLVED")

    /// REST: an email address (an invitation, a token's `email` claim) is malformed
    /// (HTTP 400; `details.field` names the field).
    public static let invalidEmail = ErrorCode(rawValue: "INVALID_EMAIL")
    /// REST: the document has as many pending email invitations as it may hold, or the
    /// address has as many pending as it may (HTTP 429); cancel some first.
    public static let tooManyInvitations = ErrorCode(rawValue: "TOO_MANY_INVITATIONS")

    /// Every code defined by AccordServer, for golden tests and documentation.
    public static let allServerCodes: [ErrorCode] = [
        .unauthenticated, .permissionDenied, .docAccessDenied, .documentUnavailable, .messageTooLarge,
        .documentTooLarge, .rateLimited, .awarenessClientTaken, .slowConsumer, .tooManyConnections, .tooManyRooms,
        .tooManyDocuments, .quotaExceeded, .metadataTooLarge, .documentDeleted, .aliasExists, .rootDocumentProtected,
        .blobTooLarge, .blobUploadOffsetMismatch, .blobUploadInProgress, .serverNotReady,
        .collectionNotFound, .collectionExists, .accessRequestNotFound, .accessRequestResolved,
        .invalidEmail, .tooManyInvitations,
    ]
}
