public import AccordCRDT

extension ErrorCode {
    /// PostgreSQL could not be reached (refused, unreachable, authentication failed) or
    /// the connection was lost and reconnecting failed. `details["reason"]` carries
    /// libpq's message. Retry later; nothing of a failed write was applied.
    public static let postgresUnavailable = ErrorCode(rawValue: "POSTGRES_UNAVAILABLE")

    /// Another process holds the schema (``PostgresSchemaLock``); `details["schema"]`.
    public static let postgresSchemaInUse = ErrorCode(rawValue: "POSTGRES_SCHEMA_IN_USE")

    /// Every code defined by AccordPostgres (besides the store codes it reuses:
    /// `STORAGE_ERROR` with `details["sqlstate"]`, `STORAGE_FULL`, `STORAGE_READ_ONLY`).
    public static let allPostgresCodes: [ErrorCode] = [.postgresUnavailable, .postgresSchemaInUse]
}
