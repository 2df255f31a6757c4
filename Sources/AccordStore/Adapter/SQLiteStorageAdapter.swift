public import AccordCRDT

/// The default ``StorageAdapter``: one SQLite file (WAL, `synchronous=FULL`), so a
/// committed batch survives a crash or power loss.
///
/// Records and log entries are rows of two tables; text keys compare byte for byte
/// (SQLite's BINARY collation over UTF-8), which gives the ascending key order the
/// protocol promises.
public final class SQLiteStorageAdapter: StorageAdapter {
    /// The underlying connection, for code of ours that needs SQL beside the adapter.
    public let connection: SQLiteConnection

    /// Opens or creates the database file at `path` (`:memory:` for a private
    /// in-memory database).
    public init(path: String, settings: SQLiteConnection.Settings = .init()) throws(AccordError) {
        connection = try SQLiteConnection(path: path, settings: settings)
        if !settings.readOnly { try createSchema() }
    }

    private func createSchema() throws(AccordError) {
        // Rowid tables rather than WITHOUT ROWID: values can be large (snapshots, blob
        // chunks), and SQLite advises rowid tables for rows bigger than a few hundred bytes.
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS accord_records (
                category TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
                UNIQUE (category, key));
            CREATE TABLE IF NOT EXISTS accord_logs (
                category TEXT NOT NULL, key TEXT NOT NULL, sequence INTEGER NOT NULL, value BLOB NOT NULL,
                UNIQUE (category, key, sequence));
            """)
    }

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
        guard after < UInt64(Int64.max), limit > 0 else { return [] }
        let statement = try connection.cachedStatement("""
            SELECT sequence, value FROM accord_logs
            WHERE category = ? AND key = ? AND sequence > ? ORDER BY sequence LIMIT ?
            """)
        var entries: [StorageLogEntry] = []
        try statement.forEachRow([
            .text(category.rawValue), .text(key), .integer(Int64(after)), .integer(Int64(min(limit, Int(Int64.max)))),
        ]) { row in
            entries.append(StorageLogEntry(sequence: UInt64(row.int64(0)), value: row.blob(1)))
        }
        return entries
    }

    public func lastSequence(_ category: StorageCategory, key: String) throws -> UInt64? {
        try lastSequenceValue(category, key: key)
    }

    public func logKeys(in category: StorageCategory) throws -> [String] {
        try textColumn("SELECT DISTINCT key FROM accord_logs WHERE category = ? ORDER BY key", category)
    }

    public func commit(_ batch: [StorageOperation]) throws {
        guard !batch.isEmpty else { return }
        try connection.transaction {
            for operation in batch { try apply(operation) }
        }
    }

    public func wipeAll() throws {
        try connection.transaction {
            try connection.execute("DELETE FROM accord_records; DELETE FROM accord_logs;")
        }
        // Deleted rows linger in free pages and in the WAL until overwritten; for a
        // logout they must be gone from the disk, so rewrite the file and empty the WAL.
        if connection.path != ":memory:" {
            try connection.execute("VACUUM")
            try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    private func apply(_ operation: StorageOperation) throws(AccordError) {
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
            if let last = try lastSequenceValue(category, key: key), last >= sequence {
                throw AccordError(
                    .invalidArgument, "log sequence \(sequence) is not after \(last)",
                    details: ["category": category.rawValue, "key": key])
            }
            try connection.cachedStatement(
                "INSERT INTO accord_logs (category, key, sequence, value) VALUES (?, ?, ?, ?)"
            ).run([.text(category.rawValue), .text(key), .integer(Int64(sequence)), .blob(value)])
        case .truncateLog(let category, let key, let through):
            try connection.cachedStatement(
                "DELETE FROM accord_logs WHERE category = ? AND key = ? AND sequence <= ?"
            ).run([.text(category.rawValue), .text(key), .integer(Int64(clamping: through))])
        case .deleteLog(let category, let key):
            try connection.cachedStatement("DELETE FROM accord_logs WHERE category = ? AND key = ?")
                .run([.text(category.rawValue), .text(key)])
        }
    }

    private func lastSequenceValue(_ category: StorageCategory, key: String) throws(AccordError) -> UInt64? {
        let statement = try connection.cachedStatement(
            "SELECT MAX(sequence) FROM accord_logs WHERE category = ? AND key = ?")
        var last: UInt64?
        try statement.forEachRow([.text(category.rawValue), .text(key)]) { row in
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
