public import AccordCRDT

extension ErrorCode {
    /// A record body has unknown fields or values of the wrong type; `details` names
    /// each fault as `value.<key>` (in a bulk body, `operations[i].value.<key>`).
    public static let validationFailed = ErrorCode(rawValue: "VALIDATION_FAILED")
    /// An `$in` or `$nin` list in a filter holds more values than the server allows
    /// (1,000); `details` names the field and the count.
    public static let queryInListTooLarge = ErrorCode(rawValue: "QUERY_IN_LIST_TOO_LARGE")
    /// A filter needs more bound parameters than the server allows (100).
    public static let queryFilterTooManyBinds = ErrorCode(rawValue: "QUERY_FILTER_TOO_MANY_BINDS")
    /// An `If-Match` precondition (or a create over an existing id) did not hold; nothing
    /// was written (HTTP 409).
    public static let conditionNotMet = ErrorCode(rawValue: "CONDITION_NOT_MET")
    /// The server failed in a way the caller cannot fix; the cause is in the server log
    /// only (HTTP 500).
    public static let internalError = ErrorCode(rawValue: "INTERNAL_ERROR")

    /// The ingest session named does not exist on this server (never created, forgotten
    /// by a restart, or of another document); HTTP 404.
    public static let ingestSessionNotFound = ErrorCode(rawValue: "INGEST_SESSION_NOT_FOUND")

    /// Every code the records REST API adds, for golden tests and documentation.
    public static let allRecordsAPICodes: [ErrorCode] = [
        .validationFailed, .queryInListTooLarge, .queryFilterTooManyBinds, .conditionNotMet, .internalError,
        .ingestSessionNotFound,
    ]
}
