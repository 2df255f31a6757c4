import Foundation
import AccordCRDT
import AccordNet
import AccordStore
import AccordRecords

/// The records routes' error responses: the REST API's body
/// (`{"error": {"code", "message", "details"}}`) with a status per code. A code the
/// caller cannot act on (storage failures, bugs) is answered as `INTERNAL_ERROR`
/// without details, and the real error goes to the server log (stderr) only.
enum RecordsError {
    static func response(_ error: AccordError) -> HTTPResponse {
        guard let status = status(for: error.code) else {
            log(error)
            let hidden = AccordError(.internalError, "The server could not complete the request; see the server log")
            return response(hidden, status: 500)
        }
        return response(error, status: status)
    }

    private static func response(_ error: AccordError, status: Int) -> HTTPResponse {
        let body = RESTError.Body(error: .init(code: error.code.rawValue, message: error.message, details: error.details))
        return RESTJSON.response(status: status, body)
    }

    /// The status of a code the caller can act on; nil for the others (500).
    static func status(for code: ErrorCode) -> Int? {
        switch code {
        case .unauthenticated: 401
        case .docAccessDenied, .permissionDenied: 403
        case .documentNotFound, .recordNotFound, .modelNotRegistered, .ingestSessionNotFound: 404
        case .conditionNotMet, .uniqueViolation, .documentExists: 409
        case .invalidArgument, .malformedJSON, .validationFailed, .reservedFieldName, .invalidQuery, .queryInListTooLarge,
             .queryFilterTooManyBinds, .invalidSchema, .uniqueOnStringSet, .malformedUpdate:
            400
        case .documentTooLarge: 413
        case .quotaExceeded: 429
        case .documentUnavailable: 503
        default: nil
        }
    }

    private static func log(_ error: AccordError) {
        let details = error.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        FileHandle.standardError.write(Data("accord serve: records request failed: \(error.code.rawValue): \(error.message) \(details)\n".utf8))
    }
}
