import AccordCRDT

/// The default ``StorageAdapter``: one SQLite file (WAL, `synchronous=FULL`), so a
/// committed batch survives a crash or power loss.
///
/// Records are rows keyed by (category, key). A log gets a small integer id the first
/// time it is appended to (`accord_log_names`), and its entries are rows keyed by
/// (id, sequence), so appending a keystroke touches two short integer-keyed b-trees
/// rather than comparing text keys. Text compares byte for byte (SQLite's BINARY
/// collation over UTF-8), which gives the ascending key order the protocol promises.
public final class SQLiteStorageAdapter: StorageAdapter {
    /// The underlying connection, for code of ours that needs SQL beside the adapter.
    public let connection: SQLiteConnection

    /// The schema this code reads and writes (`PRAGMA user_version`).
    static let schemaVersion: Int64 = 1

    private struct LogName: Hashable {
        var category: StorageCategory
        var key: [UInt8]
        init(_ category: StorageCategory, _ key: String) {
            self.category = category
            self.key = Array(key.utf8)
        }
    }

    /// Log ids known to exist in the database. Cleared whenever a commit fails, since
    /// ids assigned inside a rolled-back transaction are gone.
    private var logIDs: [LogName: Int64] = [:] {
        didSet { lastLogName = nil }
    }
    private var lastLogName: (category: StorageCategory, key: String, id: Int64)?

    /// Where blob content goes (see ``BlobDirectory``): nil keeps it in the database.
    public let blobDirectory: BlobDirectory?

    /// The statement every appended log entry runs, held here so that an append does
    /// not hash its SQL text to find it in the connection's cache (that showed in
    /// profiles of a flush of many keystrokes). Reset after each use (by runBorrowing).
    private var insertLogEntry: SQLiteStatement?

    /// Opens or creates the database file at `path` (`:memory:` for a private
    /// in-memory database, whose blobs stay in it). Blob content goes to files in
    /// `<path>.blobs` unless `blobFiles` says otherwise.
    public init(
        path: String, settings: SQLiteConnection.Settings = .init(), blobFiles: BlobFilePlacement = .besideDatabase
    ) throws(AccordError) {
        connection = try SQLiteConnection(path: path, settings: settings)
        blobDirectory = blobFiles.directory(forDatabase: path)
        try prepareSchema(readOnly: settings.readOnly)
    }

    private func prepareSchema(readOnly: Bool) throws(AccordError) {
        var version: Int64 = 0
        try connection.prepare("PRAGMA user_version").forEachRow { version = $0.int64(0) }
        guard version <= Self.schemaVersion else {
            throw AccordError(
                .storageError, "\(connection.path) was written by a newer Accord (schema \(version))",
                details: ["schema_version": String(version)])
        }
        guard version < Self.schemaVersion, !readOnly else { return }
        // Rowid tables rather than WITHOUT ROWID: values can be large (snapshots, blob
        // chunks), and SQLite advises rowid tables for rows bigger than a few hundred bytes.
        try storageCall {
            try connection.transaction {
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS accord_records (
                    category TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
                    UNIQUE (category, key));
                CREATE TABLE IF NOT EXISTS accord_log_names (
                    id INTEGER PRIMARY KEY, category TEXT NOT NULL, key TEXT NOT NULL,
                    UNIQUE (category, key));
                CREATE TABLE IF NOT EXISTS accord_logs (
                    log INTEGER NOT NULL, sequence INTEGER NOT NULL, value BLOB NOT NULL,
                    UNIQUE (log, sequence));
                PRAGMA user_version = \(Self.schemaVersion);
                """)
            }
        }
    }

    // MARK: Reading

    public func read(_ category: StorageCategory, key: String) throws -> [UInt8]? {
        let statement = try connection.cachedStatement(
            "SELECT value FROM accord_records WHERE category = ? AND key = ?")
        var value: [UInt8]?
        try statement.forEachRow([.text(category.rawValue), .text(key)]) { row in value = row.blob(0) }
        return value
    }

    public func keys(in category: StorageCategory) throws -> [String] {
        try textColumn("SELECT key FROM accord_records WHERE category = ? ORDER BY key", category)
    }

    public func readLog(_ category: StorageCategory, key: String, after: UInt64, limit: Int) throws -> [StorageLogEntry] {
        guard after < UInt64(Int64.max), limit > 0, let log = try existingLogID(category, key) else { return [] }
        let statement = try connection.cachedStatement(
            "SELECT sequence, value FROM accord_logs WHERE log = ? AND sequence > ? ORDER BY sequence LIMIT ?")
        var entries: [StorageLogEntry] = []
        try statement.forEachRow([.integer(log), .integer(Int64(after)), .integer(Int64(min(limit, Int(Int64.max))))]) { row in
            entries.append(StorageLogEntry(sequence: UInt64(row.int64(0)), value: row.blob(1)))
        }
        return entries
    }

    public func lastSequence(_ category: StorageCategory, key: String) throws -> UInt64? {
        guard let log = try existingLogID(category, key) else { return nil }
        return try lastSequence(log: log)
    }

    public func logKeys(in category: StorageCategory) throws -> [String] {
        try textColumn("""
            SELECT key FROM accord_log_names AS n WHERE category = ?
            AND EXISTS (SELECT 1 FROM accord_logs WHERE log = n.id) ORDER BY key
            """, category)
    }

    // MARK: Writing

    public func commit(_ batch: [StorageOperation]) throws {
        guard !batch.isEmpty else { return }
        // The last sequence of each log this batch appends to, so a run of appends to
        // one log looks the maximum up once rather than once per entry.
        var lastSequences: [Int64: UInt64] = [:]
        do {
            try connection.transaction {
                for operation in batch { try apply(operation, lastSequences: &lastSequences) }
            }
        } catch {
            logIDs = [:]
            throw error
        }
    }

    public func wipeAll() throws {
        logIDs = [:]
        try connection.transaction {
            try connection.execute("DELETE FROM accord_records; DELETE FROM accord_logs; DELETE FROM accord_log_names;")
        }
        // Deleted rows linger in free pages and in the WAL until overwritten; for a
        // logout they must be gone from the disk, so rewrite the file and empty the WAL.
        if connection.path != ":memory:" {
            try connection.execute("VACUUM")
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        // After the rows: a crash in between leaves files nothing names (collected
        // later), never an index record whose file is gone.
        try blobDirectory?.removeAll()
    }

    private func apply(_ operation: StorageOperation, lastSequences: inout [Int64: UInt64]) throws(AccordError) {
        switch operation {
        case .put(let category, let key, let value):
            try connection.cachedStatement(
                "INSERT INTO accord_records (category, key, value) VALUES (?, ?, ?) "
                    + "ON CONFLICT (category, key) DO UPDATE SET value = excluded.value"
            ).run([.text(category.rawValue), .text(key), .blob(value)])
        case .delete(let category, let key):
            try connection.cachedStatement("DELETE FROM accord_records WHERE category = ? AND key = ?")
                .run([.text(category.rawValue), .text(key)])
        case .append(let category, let key, let sequence, let value):
            guard StorageLogEntry.validSequences.contains(sequence) else {
                throw AccordError(.invalidArgument, "log sequence \(sequence) is outside 1...2^63-1")
            }
            let log = try logID(category, key)
            let last: UInt64?
            if let cached = lastSequences[log] { last = cached } else { last = try lastSequence(log: log) }
            if let last, last >= sequence {
                throw AccordError(
                    .invalidArgument, "log sequence \(sequence) is not after \(last)",
                    details: ["category": category.rawValue, "key": key])
            }
            let insert = try insertLogEntryStatement()
            try insert.bind(log, at: 1)
            try insert.bind(Int64(sequence), at: 2)
            try insert.runBorrowing(blob: value, at: 3)
            lastSequences[log] = sequence
        case .truncateLog(let category, let key, let through):
            guard let log = try existingLogID(category, key) else { return }
            lastSequences[log] = nil
            try connection.cachedStatement("DELETE FROM accord_logs WHERE log = ? AND sequence <= ?")
                .run([.integer(log), .integer(Int64(clamping: through))])
        case .deleteLog(let category, let key):
            guard let log = try existingLogID(category, key) else { return }
            lastSequences[log] = nil
            logIDs[LogName(category, key)] = nil
            try connection.cachedStatement("DELETE FROM accord_logs WHERE log = ?").run([.integer(log)])
            try connection.cachedStatement("DELETE FROM accord_log_names WHERE id = ?").run([.integer(log)])
        }
    }

    // MARK: Log ids

    /// The id of a log, creating its name row if it has none. Inside a transaction.
    private func logID(_ category: StorageCategory, _ key: String) throws(AccordError) -> Int64 {
        if let id = try existingLogID(category, key) { return id }
        try connection.cachedStatement("INSERT INTO accord_log_names (category, key) VALUES (?, ?)")
            .run([.text(category.rawValue), .text(key)])
        let id = connection.lastInsertRowID
        logIDs[LogName(category, key)] = id
        return id
    }

    private func insertLogEntryStatement() throws(AccordError) -> SQLiteStatement {
        if let insertLogEntry { return insertLogEntry }
        let statement = try connection.prepare("INSERT INTO accord_logs (log, sequence, value) VALUES (?, ?, ?)")
        insertLogEntry = statement
        return statement
    }

    private func existingLogID(_ category: StorageCategory, _ key: String) throws(AccordError) -> Int64? {
        // Runs of operations on one log are the common case (a flush appends many
        // updates of one document): compare with the last name before hashing bytes.
        if let last = lastLogName, last.category == category, ExactName.equal(last.key, key) {
            return last.id
        }
        let name = LogName(category, key)
        if let id = logIDs[name] {
            lastLogName = (category, key, id)
            return id
        }
        var id: Int64?
        try connection.cachedStatement("SELECT id FROM accord_log_names WHERE category = ? AND key = ?")
            .forEachRow([.text(category.rawValue), .text(key)]) { id = $0.int64(0) }
        if let id { logIDs[name] = id }
        return id
    }

    private func lastSequence(log: Int64) throws(AccordError) -> UInt64? {
        var last: UInt64?
        try connection.cachedStatement("SELECT MAX(sequence) FROM accord_logs WHERE log = ?").forEachRow([.integer(log)]) { row in
            if !row.isNull(0) { last = UInt64(row.int64(0)) }
        }
        return last
    }

    private func textColumn(_ sql: String, _ category: StorageCategory) throws(AccordError) -> [String] {
        var keys: [String] = []
        try connection.cachedStatement(sql).forEachRow([.text(category.rawValue)]) { row in keys.append(row.text(0)) }
        return keys
    }
}
