public import AccordCRDT

extension ErrorCode {
    /// A top-level document property named `_id`, `_rev`, `_deleted`, `_attachments`,
    /// `_removed` or `_sequence`: those names belong to the database. Other `_` keys are allowed.
    public static let reservedKey = ErrorCode(rawValue: "RESERVED_KEY")
    /// A database, scope or collection name that breaks the name rule (1-251 characters
    /// of letters, digits, `_`, `-`, `%`, not starting with `_` or `%`).
    public static let invalidName = ErrorCode(rawValue: "INVALID_NAME")
    /// The database files are open in another `Database` (in this process or another).
    public static let databaseLocked = ErrorCode(rawValue: "DATABASE_LOCKED")
    /// The database was closed or deleted; no further calls are accepted.
    public static let databaseClosed = ErrorCode(rawValue: "DATABASE_CLOSED")
    /// The collection was deleted (or never created) while a handle to it was kept.
    public static let collectionNotFound = ErrorCode(rawValue: "COLLECTION_NOT_FOUND")
    /// A property value JSON cannot hold (NaN, infinity, a type the database does not
    /// store), or nesting deeper than the database accepts. The message names the key.
    public static let invalidValue = ErrorCode(rawValue: "INVALID_VALUE")

    /// Every code defined by AccordDatabase, for golden tests and documentation.
    public static let allDatabaseCodes: [ErrorCode] = [
        .reservedKey, .invalidName, .databaseLocked, .databaseClosed, .collectionNotFound, .invalidValue,
    ]
}
