import AccordCRDT
import AccordStore

/// The comparison point of `accord-bench database`: JSON documents as an app without
/// Accord would keep them in SQLite: one table of (id, JSON text), `json_extract` in
/// queries and an expression index on the queried path. Same connection wrapper and
/// settings as the database's document table (WAL, `synchronous=NORMAL`), and each read
/// parses the JSON it returns, as the database does.
final class PlainJSONTable {
    let connection: SQLiteConnection

    init(path: String) throws(AccordError) {
        var settings = SQLiteConnection.Settings()
        settings.synchronousFull = false
        connection = try SQLiteConnection(path: path, settings: settings)
        try connection.execute("CREATE TABLE IF NOT EXISTS docs (id TEXT PRIMARY KEY NOT NULL, body TEXT NOT NULL) WITHOUT ROWID")
    }

    func save(_ documents: ArraySlice<(id: String, json: String)>) throws {
        try connection.transaction {
            let upsert = try connection.cachedStatement("INSERT OR REPLACE INTO docs (id, body) VALUES (?, ?)")
            for document in documents { try upsert.run([.text(document.id), .text(document.json)]) }
        }
    }

    func get(_ id: String) throws(AccordError) -> AnyValue? {
        var body: AnyValue?
        try connection.cachedStatement("SELECT body FROM docs WHERE id = ?").forEachRow([.text(id)]) { row throws(AccordError) in
            body = try AnyValue(jsonText: row.text(0))
        }
        return body
    }

    func createIndex(path: String) throws(AccordError) {
        try connection.execute("CREATE INDEX IF NOT EXISTS docs_city ON docs (json_extract(body, '$.\(path)'))")
    }

    /// The documents (parsed) whose `where` holds.
    func query(_ condition: String, _ parameters: [SQLiteValue]) throws(AccordError) -> [AnyValue] {
        var rows: [AnyValue] = []
        try connection.prepare("SELECT id, body FROM docs WHERE \(condition) ORDER BY id").forEachRow(parameters) { row throws(AccordError) in
            rows.append(try AnyValue(jsonText: row.text(1)))
        }
        return rows
    }
}
