public import AccordCRDT
public import AccordNet
import AccordStore

/// Turns an ``AccordError`` into the REST API's error response: the status for its
/// code and the JSON body `{"error":{"code","message","details"}}`.
///
/// | code | status |
/// |---|---|
/// | `UNAUTHENTICATED` | 401 |
/// | `DOC_ACCESS_DENIED`, `PERMISSION_DENIED`, `ROOT_DOCUMENT_PROTECTED` | 403 |
/// | `DOCUMENT_NOT_FOUND` | 404 |
/// | `DOCUMENT_EXISTS`, `ALIAS_EXISTS` | 409 |
/// | `INVALID_ARGUMENT`, `MALFORMED_JSON`, `METADATA_TOO_LARGE`, `INVALID_EMAIL` | 400 |
/// | `TOO_MANY_DOCUMENTS`, `TOO_MANY_INVITATIONS` | 429 |
/// | `BLOB_NOT_FOUND` | 404 |
/// | `BLOB_TOO_LARGE`, `QUOTA_EXCEEDED` | 413 |
/// | `BLOB_HASH_MISMATCH` | 422 |
/// | `BLOB_UPLOAD_OFFSET_MISMATCH`, `BLOB_UPLOAD_IN_PROGRESS` | 409 |
/// | `SERVER_NOT_READY` | 503 |
/// | anything else (storage errors) | 500 |
public enum RESTError {
    /// The response for `error`. `details` is always an object (empty when there are none).
    public static func response(_ error: AccordError) -> HTTPResponse {
        let body = Body(error: .init(code: error.code.rawValue, message: error.message, details: error.details))
        return RESTJSON.response(status: status(for: error.code), body)
    }

    /// The HTTP status for a code; the one place the mapping lives.
    static func status(for code: ErrorCode) -> Int {
        switch code {
        case .unauthenticated: 401
        case .docAccessDenied, .permissionDenied, .rootDocumentProtected: 403
        case .documentNotFound, .blobNotFound, .collectionNotFound, .accessRequestNotFound: 404
        case .documentExists, .aliasExists, .blobUploadOffsetMismatch, .blobUploadInProgress, .collectionExists,
             .accessRequestResolved: 409
        case .blobTooLarge, .quotaExceeded: 413
        case .blobHashMismatch: 422
        case .invalidArgument, .malformedJSON, .metadataTooLarge, .invalidEmail: 400
        case .tooManyDocuments, .tooManyInvitations: 429
        case .serverNotReady: 503
        default: 500
        }
    }

    struct Body: Encodable {
        struct Inner: Encodable {
            var code: String
            var message: String
            var details: [String: String]
        }
        var error: Inner
    }
}
