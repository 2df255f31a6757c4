import AccordCRDT
import AccordStore

/// The comparison point of `accord-bench records`: the same tasks in a SQLite schema
/// written by hand for this one model, as an app without Accord would keep them. A
/// plain rowid table with typed columns, an index on each field the Accord model marks
/// `indexed` (title, priority), and a members table for the tags with an index by tag.
/// Same connection wrapper and settings as the records index (WAL,
/// `synchronous=NORMAL`), so the ratio measures the index's layout and SQL, not SQLite.
final class HandWrittenTasks {
    let connection: SQLiteConnection

    init(path: String) throws(AccordError) {
        var settings = SQLiteConnection.Settings()
        settings.synchronousFull = false
        connection = try SQLiteConnection(path: path, settings: settings)
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS tasks (
                id TEXT PRIMARY KEY NOT NULL, title TEXT, priority REAL, done INTEGER,
                category TEXT, hours REAL, due TEXT);
            CREATE INDEX IF NOT EXISTS tasks_title ON tasks (title);
            CREATE INDEX IF NOT EXISTS tasks_priority ON tasks (priority);
            CREATE TABLE IF NOT EXISTS task_tags (task TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (task, tag)) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS task_tags_by_tag ON task_tags (tag, task);
            """)
    }

    /// A task as a query returns it: what the records API returns too (every field,
    /// tags included), so both sides decode the same amount.
    struct Row {
        var id: String
        var title: String
        var priority: Double
        var done: Bool
        var category: String
        var hours: Double
        var tags: [String]
        var due: String
    }

    // MARK: Writing

    /// Saves `tasks` in one transaction (insert or replace, tags rewritten).
    func save(_ tasks: [TaskFixture.Task]) throws {
        try connection.transaction {
            let upsert = try connection.cachedStatement(
                "INSERT OR REPLACE INTO tasks (id, title, priority, done, category, hours, due) VALUES (?, ?, ?, ?, ?, ?, ?)")
            let clear = try connection.cachedStatement("DELETE FROM task_tags WHERE task = ?")
            let tag = try connection.cachedStatement("INSERT INTO task_tags (task, tag) VALUES (?, ?)")
            for task in tasks {
                try upsert.run([
                    .text(task.id), .text(task.title), .real(task.priority), .integer(task.done ? 1 : 0),
                    .text(task.category), .real(task.hours), .text(task.due),
                ])
                try clear.run([.text(task.id)])
                for member in task.tags { try tag.run([.text(task.id), .text(member)]) }
            }
        }
    }

    // MARK: Queries (each the counterpart of one in RecordsQueries)

    /// Every column, and the tags as one `char(31)`-separated text (one statement per
    /// query, as a hand-written app would fetch them).
    static let columns = """
        t.id, t.title, t.priority, t.done, t.category, t.hours, t.due,
        (SELECT group_concat(g.tag, char(31)) FROM task_tags g WHERE g.task = t.id)
        """

    func rows(_ sql: String, _ parameters: [SQLiteValue]) throws(AccordError) -> [Row] {
        var rows: [Row] = []
        try connection.cachedStatement("SELECT \(Self.columns) FROM tasks t \(sql)").forEachRow(parameters) { row in
            let tags = row.isNull(7) ? [] : row.text(7).split(separator: "\u{1F}").map(String.init)
            rows.append(Row(
                id: row.text(0), title: row.text(1), priority: row.double(2), done: row.int64(3) != 0,
                category: row.text(4), hours: row.double(5), tags: tags, due: row.text(6)))
        }
        return rows
    }

    func titleEquals(_ title: String) throws(AccordError) -> [Row] {
        try rows("WHERE t.title = ? ORDER BY t.id LIMIT 20", [.text(title)])
    }

    func priorityAtLeastByDue(_ priority: Double) throws(AccordError) -> [Row] {
        try rows("WHERE t.priority >= ? ORDER BY t.due, t.id LIMIT 20", [.real(priority)])
    }

    /// `LIKE` is what a hand-written app reaches for: ASCII case-insensitive, which for
    /// the fixture's ASCII titles matches what `$containsText`'s full case folding does.
    func titleContains(_ needle: String) throws(AccordError) -> [Row] {
        try rows("WHERE t.title LIKE ? ORDER BY t.id", [.text("%\(needle)%")])
    }

    func tagged(_ tag: String) throws(AccordError) -> [Row] {
        try rows(
            "WHERE EXISTS (SELECT 1 FROM task_tags g WHERE g.task = t.id AND g.tag = ?) ORDER BY t.id LIMIT 20", [.text(tag)])
    }

    func byID(_ id: String) throws(AccordError) -> [Row] {
        try rows("WHERE t.id = ?", [.text(id)])
    }

    func countOpen(priorityAtLeast priority: Double) throws(AccordError) -> Int {
        var count = 0
        try connection.cachedStatement("SELECT count(*) FROM tasks WHERE done = 0 AND priority >= ?")
            .forEachRow([.real(priority)]) { row in count = Int(row.int64(0)) }
        return count
    }

    func hoursByCategory() throws(AccordError) -> [(category: String, count: Int, hours: Double)] {
        var groups: [(String, Int, Double)] = []
        try connection.cachedStatement(
            "SELECT category, count(*), total(hours) FROM tasks GROUP BY category ORDER BY category"
        ).forEachRow { row in groups.append((row.text(0), Int(row.int64(1)), row.double(2))) }
        return groups
    }

    /// Tasks by tag, a task once per tag and the untagged ones under nil, by tag.
    func countByTag() throws(AccordError) -> [(tag: String?, count: Int)] {
        var groups: [(String?, Int)] = []
        try connection.cachedStatement(
            "SELECT g.tag, count(*) FROM tasks t LEFT JOIN task_tags g ON g.task = t.id GROUP BY g.tag ORDER BY g.tag"
        ).forEachRow { row in groups.append((row.isNull(0) ? nil : row.text(0), Int(row.int64(1)))) }
        return groups
    }

    /// Bytes of the database: `page_count × page_size` (the WAL's pages included, as
    /// the connection sees them).
    func sizeBytes() throws(AccordError) -> Int { try Self.sizeBytes(connection) }

    static func sizeBytes(_ connection: SQLiteConnection) throws(AccordError) -> Int {
        var pages = 0
        var size = 0
        try connection.prepare("PRAGMA page_count").forEachRow { pages = Int($0.int64(0)) }
        try connection.prepare("PRAGMA page_size").forEachRow { size = Int($0.int64(0)) }
        return pages * size
    }
}
