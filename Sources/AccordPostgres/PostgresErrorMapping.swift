import AccordCRDT
import AccordStore

/// PostgreSQL's SQLSTATEs as Accord's error codes.
enum PostgresErrorMapping {
    /// Raised by `accord_append` when a log sequence is not after the log's last one.
    static let sequenceNotAfter = "AC001"

    static func error(sqlstate: String?, message: String, statement: String, connected: Bool) -> AccordError {
        guard let sqlstate else {
            // No server error: libpq lost the connection (or never had one).
            return AccordError(
                .postgresUnavailable, "the PostgreSQL connection failed: \(message)",
                details: ["reason": message, "statement": statement])
        }
        var details = ["sqlstate": sqlstate, "statement": statement]
        switch sqlstate {
        case sequenceNotAfter:
            return AccordError(.invalidArgument, message, details: details)
        case "53100", "53200", "54000":  // disk_full, out_of_memory, program_limit_exceeded
            return AccordError(.storageFull, "PostgreSQL is full: \(message)", details: details)
        case "25006":  // read_only_sql_transaction (a standby, or default_transaction_read_only)
            return AccordError(.storageReadOnly, "PostgreSQL refused a write: \(message)", details: details)
        default:
            // Class 08 (connection exception) and 57P01-57P03 (shutdown, crash recovery):
            // the server went away under us.
            if sqlstate.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlstate) || !connected {
                details["reason"] = message
                return AccordError(.postgresUnavailable, "the PostgreSQL connection failed: \(message)", details: details)
            }
            return AccordError(.storageError, "PostgreSQL: \(message)", details: details)
        }
    }

    /// Failures worth running the same transaction again for: a lost connection
    /// (reconnect first), a serialization failure or a deadlock.
    static func isRetryable(_ error: AccordError) -> Bool {
        if error.code == .postgresUnavailable { return true }
        guard let sqlstate = error.details["sqlstate"] else { return false }
        return sqlstate == "40001" || sqlstate == "40P01"
    }
}
