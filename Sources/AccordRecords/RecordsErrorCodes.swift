public import AccordCRDT

extension ErrorCode {
    /// A schema field named `type` or starting with `_`: those names belong to the
    /// index's own columns.
    public static let reservedFieldName = ErrorCode(rawValue: "RESERVED_FIELD_NAME")
    /// A unique constraint (single-field or named) that includes a string-set field.
    public static let uniqueOnStringSet = ErrorCode(rawValue: "UNIQUE_ON_STRINGSET")
    /// A schema that breaks another rule: a duplicate name, an unknown relationship
    /// target or field, a default of the wrong type.
    public static let invalidSchema = ErrorCode(rawValue: "INVALID_SCHEMA")
    /// A filter, sort or aggregation that is malformed: an unknown operator, an operand
    /// of the wrong shape, an unknown field. The message names the path.
    public static let invalidQuery = ErrorCode(rawValue: "INVALID_QUERY")

    /// Every code defined by AccordRecords, for golden tests and documentation.
    public static let allRecordsCodes: [ErrorCode] = [
        .reservedFieldName, .uniqueOnStringSet, .invalidSchema, .invalidQuery, .modelNotRegistered, .uniqueViolation,
        .recordNotFound,
    ]
}

extension ErrorCode {
    /// A query or write names a model that is not registered (with this client or index).
    public static let modelNotRegistered = ErrorCode(rawValue: "MODEL_NOT_REGISTERED")
    /// A save would give a record the values of a unique field or constraint that
    /// another record already holds; the message names the constraint and that record.
    public static let uniqueViolation = ErrorCode(rawValue: "UNIQUE_VIOLATION")
    /// An upsert that must update found no record holding the key.
    public static let recordNotFound = ErrorCode(rawValue: "RECORD_NOT_FOUND")
}
