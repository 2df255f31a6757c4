import AccordCRDT
import AccordRecords
import AccordStore

/// The documents of every collection as JSON rows (`documents.sqlite` beside the store),
/// derived from the collections' CRDT documents: reads, counts and queries answer from
/// here, and a batch's rows change in one SQLite transaction, so a reader sees all of a
/// batch or none of it.
///
/// Derived, so it is rebuilt from the store when it falls behind: each collection's row
/// in `projected` holds the store sequence its rows reflect, written in the same
/// transaction as the rows. What only this table holds (purges, expirations) is written
/// in WAL mode without a sync per commit; a crash keeps it, a power loss may lose the
/// last moments of it.
///
/// Not `Sendable`: the ``Database`` reaches it only while holding its lock.
final class DocumentTable {
    let connection: SQLiteConnection
    /// Prepared statements by SQL text. Kept here rather than in the connection's own
    /// cache: a statement holds its connection, so a connection holding its statements
    /// is never freed (nor its file closed, nor, in exclusive mode, unlocked); releasing
    /// the table releases these and then the connection.
    private var statements: [String: SQLiteStatement] = [:]

    /// One document's row. A deleted document keeps a row (its tombstone, with the next
    /// sequence); a purged one keeps its body, so a later change to it (a remote edit)
    /// is recognised and brings it back.
    struct Row {
        var body: String
        var sequence: UInt64
        var deleted: Bool
        var purged: Bool
        var expiration: Double?
        var isVisible: Bool { !deleted && !purged }
    }

    init(path: String) throws(AccordError) {
        var settings = SQLiteConnection.Settings()
        settings.synchronousFull = false
        connection = try SQLiteConnection(path: path, settings: settings)
        // The database's flock already keeps every other process out of these files, so
        // SQLite need not lock per transaction (its fcntl calls showed in profiles of
        // saves and gets); exclusive mode takes its locks once and keeps them.
        try connection.execute("PRAGMA locking_mode = EXCLUSIVE")
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS documents (
                collection TEXT NOT NULL, id TEXT NOT NULL, body TEXT NOT NULL, sequence INTEGER NOT NULL,
                deleted INTEGER NOT NULL DEFAULT 0, purged INTEGER NOT NULL DEFAULT 0, expiration REAL,
                PRIMARY KEY (collection, id)) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS documents_expiration ON documents (expiration) WHERE expiration IS NOT NULL;
            CREATE TABLE IF NOT EXISTS projected (collection TEXT PRIMARY KEY, store_sequence INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS indexes (
                collection TEXT NOT NULL, name TEXT NOT NULL, key_paths TEXT NOT NULL, PRIMARY KEY (collection, name));
            """)
        try FilterText.registerFold(on: connection)
    }

    /// The prepared statement for `sql`, reset for use.
    private func statement(_ sql: String) throws(AccordError) -> SQLiteStatement {
        if let statement = statements[sql] {
            statement.reset()
            return statement
        }
        let statement = try connection.prepare(sql)
        statements[sql] = statement
        return statement
    }

    func transaction<T>(_ body: () throws(AccordError) -> T) throws(AccordError) -> T {
        do {
            return try connection.transaction { () throws -> T in try body() }
        } catch let error as AccordError {
            throw error
        } catch {
            throw AccordError(.storageError, "the document table: \(error)")
        }
    }

    /// ``transaction(_:)`` whose commit is synced to disk before it returns. For what
    /// only this table holds (purges, expirations): everything else in it is derived from
    /// the store and rebuilt after a loss, so the other commits skip the sync.
    func durableTransaction<T>(_ body: () throws(AccordError) -> T) throws(AccordError) -> T {
        try connection.execute("PRAGMA synchronous = FULL")
        defer { try? connection.execute("PRAGMA synchronous = NORMAL") }
        return try transaction(body)
    }

    /// SQLite's `synchronous` level on this connection (1 NORMAL, 2 FULL), for tests.
    func synchronousLevel() throws(AccordError) -> Int64 {
        var level: Int64 = -1
        try connection.prepare("PRAGMA synchronous").forEachRow { level = $0.int64(0) }
        return level
    }

    func row(collection: String, id: String) throws(AccordError) -> Row? {
        let statement = try statement(
            "SELECT body, sequence, deleted, purged, expiration FROM documents WHERE collection = ? AND id = ?")
        var row: Row?
        try statement.forEachRow([.text(collection), .text(id)]) { r in
            row = Row(
                body: r.text(0), sequence: UInt64(r.int64(1)), deleted: r.int64(2) != 0, purged: r.int64(3) != 0,
                expiration: r.isNull(4) ? nil : r.double(4))
        }
        return row
    }

    /// Every row of a collection, by id (for rebuilding it from its CRDT document).
    func rows(collection: String) throws(AccordError) -> [String: Row] {
        let statement = try statement(
            "SELECT id, body, sequence, deleted, purged, expiration FROM documents WHERE collection = ?")
        var rows: [String: Row] = [:]
        try statement.forEachRow([.text(collection)]) { r in
            rows[r.text(0)] = Row(
                body: r.text(1), sequence: UInt64(r.int64(2)), deleted: r.int64(3) != 0, purged: r.int64(4) != 0,
                expiration: r.isNull(5) ? nil : r.double(5))
        }
        return rows
    }

    /// Writes a document's content (or tombstone), visible again if it was purged; the
    /// expiration is kept.
    func write(collection: String, id: String, body: String, sequence: UInt64, deleted: Bool) throws(AccordError) {
        try statement("""
            INSERT INTO documents (collection, id, body, sequence, deleted, purged) VALUES (?, ?, ?, ?, ?, 0)
            ON CONFLICT (collection, id) DO UPDATE SET
                body = excluded.body, sequence = excluded.sequence, deleted = excluded.deleted, purged = 0
            """).run([.text(collection), .text(id), .text(body), .integer(Int64(sequence)), .integer(deleted ? 1 : 0)])
    }

    func setPurged(collection: String, id: String) throws(AccordError) {
        try statement(
            "UPDATE documents SET purged = 1, expiration = NULL WHERE collection = ? AND id = ?"
        ).run([.text(collection), .text(id)])
    }

    func setExpiration(collection: String, id: String, _ expiration: Double?) throws(AccordError) {
        try statement("UPDATE documents SET expiration = ? WHERE collection = ? AND id = ?")
            .run([expiration.map(SQLiteValue.real) ?? .null, .text(collection), .text(id)])
    }

    /// The documents whose expiration is at or before `time` (seconds since 1970).
    func expired(atOrBefore time: Double) throws(AccordError) -> [(collection: String, id: String)] {
        var due: [(collection: String, id: String)] = []
        try statement(
            "SELECT collection, id FROM documents WHERE expiration IS NOT NULL AND expiration <= ? ORDER BY expiration"
        ).forEachRow([.real(time)]) { due.append(($0.text(0), $0.text(1))) }
        return due
    }

    /// The earliest expiration set (seconds since 1970), or nil.
    func nextExpiration() throws(AccordError) -> Double? {
        var next: Double?
        try statement("SELECT MIN(expiration) FROM documents WHERE expiration IS NOT NULL")
            .forEachRow { next = $0.isNull(0) ? nil : $0.double(0) }
        return next
    }

    func count(collection: String) throws(AccordError) -> Int {
        var count = 0
        try statement(
            "SELECT COUNT(*) FROM documents WHERE collection = ? AND deleted = 0 AND purged = 0"
        ).forEachRow([.text(collection)]) { count = Int($0.int64(0)) }
        return count
    }

    /// The highest sequence given to any document (0 for none).
    func lastSequence() throws(AccordError) -> UInt64 {
        var last: UInt64 = 0
        try statement("SELECT MAX(sequence) FROM documents").forEachRow { last = UInt64($0.int64(0)) }
        return last
    }

    func projectedSequence(collection: String) throws(AccordError) -> UInt64? {
        var sequence: UInt64?
        try statement("SELECT store_sequence FROM projected WHERE collection = ?")
            .forEachRow([.text(collection)]) { sequence = UInt64($0.int64(0)) }
        return sequence
    }

    func setProjectedSequence(collection: String, _ sequence: UInt64) throws(AccordError) {
        try statement("""
            INSERT INTO projected (collection, store_sequence) VALUES (?, ?)
            ON CONFLICT (collection) DO UPDATE SET store_sequence = excluded.store_sequence
            """).run([.text(collection), .integer(Int64(sequence))])
    }

    func removeCollection(_ collection: String) throws(AccordError) {
        for (name, _) in try indexes(collection: collection) { try dropIndex(collection: collection, name: name) }
        try statement("DELETE FROM documents WHERE collection = ?").run([.text(collection)])
        try statement("DELETE FROM projected WHERE collection = ?").run([.text(collection)])
    }

    // MARK: Indexes

    /// The SQLite name of an app's index: quoted, so any index name is safe in it.
    static func indexIdentifier(collection: String, name: String) -> String {
        "\"" + "accord_index:\(collection):\(name)".replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The app's indexes of a collection: name and key paths, by name.
    func indexes(collection: String) throws(AccordError) -> [(name: String, keyPaths: [String])] {
        var result: [(name: String, keyPaths: [String])] = []
        try statement("SELECT name, key_paths FROM indexes WHERE collection = ? ORDER BY name")
            .forEachRow([.text(collection)]) { row in
                let paths = (try? AnyValue(jsonText: row.text(1)))?.arrayValue?.compactMap(\.stringValue) ?? []
                result.append((row.text(0), paths))
            }
        return result
    }

    /// Creates an expression index on the collection's rows over each key path's value.
    func createIndex(collection: String, name: String, keyPaths: [KeyPath]) throws(AccordError) {
        let expressions = keyPaths.map { "json_extract(body, \($0.sqlLiteral))" }.joined(separator: ", ")
        let identifier = Self.indexIdentifier(collection: collection, name: name)
        try connection.execute("CREATE INDEX \(identifier) ON documents (\(expressions), collection)")
        let paths = AnyValue.array(keyPaths.map { .string($0.text) }).jsonText
        try statement("INSERT INTO indexes (collection, name, key_paths) VALUES (?, ?, ?)")
            .run([.text(collection), .text(name), .text(paths)])
    }

    func dropIndex(collection: String, name: String) throws(AccordError) {
        try connection.execute("DROP INDEX IF EXISTS \(Self.indexIdentifier(collection: collection, name: name))")
        try statement("DELETE FROM indexes WHERE collection = ? AND name = ?")
            .run([.text(collection), .text(name)])
    }
}
