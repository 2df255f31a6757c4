internal import CSQLite
public import AccordCRDT

/// One SQLite database connection, with one serial owner.
///
/// The connection is opened in SQLite's multi-thread mode (`SQLITE_OPEN_NOMUTEX`): SQLite
/// does no locking of its own on the handle, which is safe because exactly one owner
/// uses it at a time (a store's lock, or a single task). It is therefore not `Sendable`.
///
/// Defaults (``Settings``): WAL journal, `synchronous=FULL`, a 5 second busy timeout. With
/// WAL, `FULL` syncs the log on every commit, so a transaction that returned survives a
/// power loss; `NORMAL` would only survive a crash of the process.
public final class SQLiteConnection {
    /// How the database is opened and tuned.
    public struct Settings: Sendable {
        public var readOnly = false
        public var createIfMissing = true
        /// Milliseconds to wait for another connection's lock before `SQLITE_BUSY`.
        public var busyTimeoutMilliseconds: Int32 = 5_000
        /// WAL lets readers run beside one writer and makes commits cheaper.
        public var walMode = true
        /// `FULL` makes every commit durable across power loss (see the type's docs).
        public var synchronousFull = true
        /// Page size in bytes (a power of two, 512 to 65536) for a database this
        /// connection creates; nil keeps SQLite's default (4096). An existing database
        /// keeps its page size. Large pages cut the per-page cost of big values
        /// (inserting 100 MB of 1 MiB rows took 0.7-1.1 s with 65536 against 1.4-1.7 s
        /// with 4096; a whole blob put, SHA-256 included, about 15% less), at the price
        /// of more bytes written per small change.
        public var pageSize: Int?
        public init() {}
    }

    let handle: OpaquePointer
    private var statementCache: [String: SQLiteStatement] = [:]
    /// The statements run last, found by the bits of their SQL `String` (the same text
    /// object passed again): a many-row insert's SQL is kilobytes long, and hashing it
    /// for ``statementCache`` on every chunk showed in profiles of the records index.
    private var recentStatements = RecentStrings<SQLiteStatement>()
    /// The file the connection was opened on (`:memory:` for an in-memory database).
    public let path: String

    /// Opens (and by default creates) the database at `path`. Calls `sqlite3_open_v2`.
    /// A database it creates is mode 0600, and so are its `-wal` and `-shm` files.
    public init(path: String, settings: Settings = Settings()) throws(AccordError) {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if settings.readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if settings.createIfMissing { flags |= SQLITE_OPEN_CREATE }
        }
        if !settings.readOnly && settings.createIfMissing { Self.createPrivately(path) }
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            sqlite3_close_v2(db)
            throw SQLiteResult.error(code, message: message, context: "cannot open \(path)")
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        try SQLiteResult.check(
            sqlite3_busy_timeout(db, settings.busyTimeoutMilliseconds), db, "busy timeout")
        // Before WAL: in WAL mode SQLite ignores a page size change.
        if let pageSize = settings.pageSize, !settings.readOnly {
            // Thrown after `handle` is set, so deinit closes the connection.
            guard (512...65536).contains(pageSize), pageSize & (pageSize - 1) == 0 else {
                throw AccordError(.invalidArgument, "SQLite page size \(pageSize) is not a power of two from 512 to 65536")
            }
            try execute("PRAGMA page_size=\(pageSize)")
        }
        if settings.walMode && !settings.readOnly && path != ":memory:" {
            try execute("PRAGMA journal_mode=WAL")
        }
        try execute(settings.synchronousFull ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
    }

    deinit {
        // Finalize statements first: close_v2 would otherwise defer the close until
        // they are gone, which hides leaks.
        statementCache.removeAll()
        recentStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more SQL statements that return no rows (`sqlite3_exec`).
    public func execute(_ sql: String) throws(AccordError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        let message = errorMessage.map { String(cString: $0) }
        sqlite3_free(errorMessage)
        if code != SQLITE_OK {
            throw SQLiteResult.error(code, message: message, context: "executing \(sql.prefix(80))")
        }
    }

    /// Compiles a statement that is finalized when the returned value is released.
    public func prepare(_ sql: String) throws(AccordError) -> SQLiteStatement {
        try SQLiteStatement(connection: self, sql: sql)
    }

    /// A statement compiled once per connection and reused; it is reset and its
    /// bindings cleared before it is handed out again.
    public func cachedStatement(_ sql: String) throws(AccordError) -> SQLiteStatement {
        if let statement = recentStatements.value(for: sql) {
            statement.reset()
            return statement
        }
        if let statement = statementCache[sql] {
            statement.reset()
            recentStatements.remember(sql, statement)
            return statement
        }
        let statement = try prepare(sql)
        statementCache[sql] = statement
        recentStatements.remember(sql, statement)
        return statement
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it
    /// throws (the error is rethrown unchanged). `BEGIN IMMEDIATE` takes the write lock
    /// up front, so a transaction never fails halfway with `SQLITE_BUSY` on upgrade.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        let result: T
        do {
            result = try body()
        } catch {
            rollbackQuietly()
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            rollbackQuietly()
            throw error
        }
        return result
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE (`sqlite3_changes`).
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last inserted row (`sqlite3_last_insert_rowid`).
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open (`sqlite3_get_autocommit` returns 0).
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    private func rollbackQuietly() {
        // After some errors (full disk, I/O) SQLite has already rolled back; ROLLBACK
        // then fails with "no transaction is active", which is fine.
        if isInTransaction { sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
    }
}

@available(*, unavailable, message: "a connection has one serial owner")
extension SQLiteConnection: Sendable {}
