internal import CSQLite
import AccordCRDT

/// The one funnel from SQLite result codes to ``AccordError``.
///
/// Full disk, read-only and corruption get codes of their own because an app reacts to
/// them differently (free space, ask for permission, restore from the server); every
/// other failure is `STORAGE_ERROR`. The extended result code and SQLite's message go
/// in `details` so a bug report carries them.
enum SQLiteResult {
    static func error(_ code: Int32, message: String?, context: String) -> AccordError {
        let primary = code & 0xFF
        let errorCode: ErrorCode
        switch primary {
        case SQLITE_FULL: errorCode = .storageFull
        case SQLITE_READONLY: errorCode = .storageReadOnly
        case SQLITE_CORRUPT, SQLITE_NOTADB: errorCode = .storageCorrupt
        default: errorCode = .storageError
        }
        let reason = message ?? String(cString: sqlite3_errstr(code))
        return AccordError(
            errorCode, "\(context): \(reason)",
            details: ["sqlite_code": String(code), "sqlite_message": reason])
    }

    /// Throws unless `code` is `SQLITE_OK`.
    @inline(__always)
    static func check(_ code: Int32, _ db: OpaquePointer?, _ context: @autoclosure () -> String) throws(AccordError) {
        guard code != SQLITE_OK else { return }
        let message = db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        throw error(code, message: message, context: context())
    }
}
