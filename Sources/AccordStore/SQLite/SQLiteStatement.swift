internal import CSQLite
public import AccordCRDT

/// A value SQLite stores in a column or takes as a parameter.
public enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A compiled SQL statement, finalized when released. Not `Sendable`: it belongs to its
/// connection's owner.
public final class SQLiteStatement {
    private let handle: OpaquePointer
    /// The connection's database handle, for error messages. Not the connection object:
    /// the connection caches its statements, and a statement holding the connection
    /// would make a cycle that keeps both alive forever. `sqlite3_close_v2` keeps the
    /// database open until its last statement is finalized, so this stays valid.
    private let database: OpaquePointer
    public let sql: String
    /// Whether a parameter may be bound since the bindings were last cleared: a reset
    /// clears them only then. A cached statement is reset when handed out and again by
    /// `run` before and after stepping, and `sqlite3_clear_bindings` walks every
    /// parameter each time (for a many-row insert of a few hundred parameters that
    /// showed in profiles of the records index).
    private var mayHoldBindings = false

    init(connection: SQLiteConnection, sql: String) throws(AccordError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        try SQLiteResult.check(code, connection.handle, "preparing \(sql.prefix(80))")
        guard let statement else {
            throw AccordError(.invalidArgument, "SQL contains no statement: \(sql.prefix(80))")
        }
        self.handle = statement
        self.database = connection.handle
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: Binding (parameters are numbered from 1, as in SQLite)

    /// Binds `values` to parameters 1, 2, ... in order.
    public func bind(_ values: [SQLiteValue]) throws(AccordError) {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value. Text and blobs are copied by SQLite (`SQLITE_TRANSIENT`).
    public func bind(_ value: SQLiteValue, at index: Int32) throws(AccordError) {
        mayHoldBindings = true
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let number):
            code = sqlite3_bind_int64(handle, index, number)
        case .real(let number):
            code = sqlite3_bind_double(handle, index, number)
        case .text(let string):
            // An explicit length keeps strings with NUL characters whole.
            var copy = string
            code = copy.withUTF8 { utf8 in
                utf8.withMemoryRebound(to: CChar.self) { chars in
                    guard let base = chars.baseAddress else {
                        return sqlite3_bind_text(handle, index, "", 0, accord_sqlite_transient())
                    }
                    return sqlite3_bind_text64(
                        handle, index, base, sqlite3_uint64(chars.count),
                        accord_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                // A zero-length blob needs a non-null pointer to read as a blob, not NULL.
                sqlite3_bind_blob64(
                    handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                    sqlite3_uint64(buffer.count), accord_sqlite_transient())
            }
        }
        try SQLiteResult.check(code, database, "binding parameter \(index) of \(sql.prefix(80))")
    }

    // Typed binds for hot paths: no enum boxing, no copy of the value on our side.

    public func bind(_ number: Int64, at index: Int32) throws(AccordError) {
        mayHoldBindings = true
        try SQLiteResult.check(sqlite3_bind_int64(handle, index, number), database, "binding parameter \(index)")
    }

    public func bind(_ string: String, at index: Int32) throws(AccordError) {
        try bind(.text(string), at: index)
    }

    public func bind(blob bytes: [UInt8], at index: Int32) throws(AccordError) {
        mayHoldBindings = true
        let code = bytes.withUnsafeBytes { buffer in
            sqlite3_bind_blob64(
                handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                sqlite3_uint64(buffer.count), accord_sqlite_transient())
        }
        try SQLiteResult.check(code, database, "binding parameter \(index)")
    }

    /// Binds `bytes` at `index` without SQLite copying them, runs the statement to its
    /// first row or completion, and resets it and clears its bindings; for an INSERT of
    /// many small values (a flush of keystrokes), where SQLite's copy of each value
    /// (`SQLITE_TRANSIENT`: allocate, copy, free) showed in profiles. SQLite reads the
    /// bytes only while stepping (`SQLITE_STATIC`), which happens while they are pinned
    /// here, and the binding is cleared before they are let go.
    public func runBorrowing(blob bytes: [UInt8], at index: Int32) throws(AccordError) {
        let (code, message) = bytes.withUnsafeBytes { buffer -> (Int32, String?) in
            var code = sqlite3_bind_blob64(
                handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                sqlite3_uint64(buffer.count), nil)
            if code == SQLITE_OK {
                code = sqlite3_step(handle)
                if code == SQLITE_ROW || code == SQLITE_DONE { code = SQLITE_OK }
            }
            let message = code == SQLITE_OK ? nil : sqlite3_errmsg(database).map { String(cString: $0) }
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            return (code, message)
        }
        if code != SQLITE_OK { throw SQLiteResult.error(code, message: message, context: "running \(sql.prefix(80))") }
    }

    /// Runs the statement once with `parameters` bound, as ``run(_:)`` does, but with the
    /// texts borrowed rather than copied by SQLite: they are bound with `SQLITE_STATIC`
    /// straight from the parameters' one buffer of text (no allocation per text, which
    /// showed in profiles of the records index's many-row inserts), and the bindings are
    /// cleared before the buffer can change again.
    public func run(_ parameters: SQLiteParameters) throws(AccordError) {
        reset()
        let outcome: (code: Int32, message: String?)
        if parameters.texts.isEmpty {
            // Every text empty (or none): any non-null pointer will do, SQLite reads no byte
            // of it (a null pointer would bind NULL).
            var nothing: UInt8 = 0
            outcome = withUnsafePointer(to: &nothing) { bindAndStep(parameters.parameters, texts: $0) }
        } else {
            outcome = parameters.texts.withUnsafeBufferPointer { bindAndStep(parameters.parameters, texts: $0.baseAddress!) }
        }
        if outcome.code != SQLITE_OK {
            throw SQLiteResult.error(outcome.code, message: outcome.message, context: "running \(sql.prefix(80))")
        }
    }

    /// Binds `parameters` (texts at `texts` + their start, borrowed), steps to the end and
    /// resets, clearing the bindings: nothing points into `texts` afterwards.
    private func bindAndStep(
        _ parameters: [SQLiteParameters.Parameter], texts: UnsafePointer<UInt8>
    ) -> (code: Int32, message: String?) {
        let base = UnsafeRawPointer(texts).assumingMemoryBound(to: CChar.self)
        var code = SQLITE_OK
        var index: Int32 = 0
        mayHoldBindings = true
        for parameter in parameters {
            index += 1
            switch parameter {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let start, let count):
                code = sqlite3_bind_text64(handle, index, base + start, sqlite3_uint64(count), nil, UInt8(SQLITE_UTF8))
            }
            if code != SQLITE_OK { break }
        }
        if code == SQLITE_OK {
            repeat { code = sqlite3_step(handle) } while code == SQLITE_ROW
            if code == SQLITE_DONE { code = SQLITE_OK }
        }
        let message = code == SQLITE_OK ? nil : sqlite3_errmsg(database).map { String(cString: $0) }
        reset()
        return (code, message)
    }

    // MARK: Stepping

    /// Advances to the next row: true when a row is available, false when done.
    @discardableResult
    public func step() throws(AccordError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let message = sqlite3_errmsg(database).map { String(cString: $0) }
            sqlite3_reset(handle)
            throw SQLiteResult.error(code, message: message, context: "running \(sql.prefix(80))")
        }
    }

    /// Binds `values`, runs the statement to completion, and resets it.
    public func run(_ values: [SQLiteValue] = []) throws(AccordError) {
        reset()
        try bind(values)
        while try step() {}
        reset()
    }

    /// Binds `values` and calls `body` for every row.
    public func forEachRow(_ values: [SQLiteValue] = [], _ body: (SQLiteStatement) throws(AccordError) -> Void) throws(AccordError) {
        reset()
        try bind(values)
        defer { reset() }
        while try step() { try body(self) }
    }

    /// Makes the statement ready to run again and clears its bindings (when any may be set).
    public func reset() {
        sqlite3_reset(handle)
        if mayHoldBindings {
            sqlite3_clear_bindings(handle)
            mayHoldBindings = false
        }
    }

    // MARK: Reading the current row (columns are numbered from 0)

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    public func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    public func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    public func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    public func blob(_ column: Int32) -> [UInt8] {
        // Ask for the pointer before the length, as SQLite's docs require.
        guard let pointer = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    public func value(_ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_TEXT: return .text(text(column))
        case SQLITE_BLOB: return .blob(blob(column))
        default: return .null
        }
    }
}

@available(*, unavailable, message: "a statement belongs to its connection's single owner")
extension SQLiteStatement: Sendable {}
