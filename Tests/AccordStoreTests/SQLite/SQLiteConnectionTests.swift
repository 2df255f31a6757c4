import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

@Suite struct SQLiteConnectionTests {
    @Test func bindsAndReadsEveryType() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t (a, b, c, d, e)")
        let values: [SQLiteValue] = [.null, .integer(-42), .real(1.5), .text("héllo\u{0}world"), .blob([0, 1, 255])]
        try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)").run(values)
        try db.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)").run([.text(""), .blob([]), .integer(Int64.max), .integer(Int64.min), .real(-0.0)])
        var rows: [[SQLiteValue]] = []
        try db.prepare("SELECT a, b, c, d, e FROM t ORDER BY rowid").forEachRow { row in
            rows.append((0..<5).map { row.value(Int32($0)) })
        }
        #expect(rows.count == 2)
        #expect(rows.first == values)
        #expect(rows.last == [.text(""), .blob([]), .integer(Int64.max), .integer(Int64.min), .real(-0.0)])
    }

    @Test func transactionRollsBackWhenTheBodyThrows() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER)")
        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.transaction {
                try db.prepare("INSERT INTO t VALUES (1)").run()
                throw Boom()
            }
        }
        #expect(!db.isInTransaction)
        var count: Int64 = -1
        try db.prepare("SELECT count(*) FROM t").forEachRow { count = $0.int64(0) }
        #expect(count == 0)
        try db.transaction { try db.prepare("INSERT INTO t VALUES (2)").run() }
        try db.prepare("SELECT count(*) FROM t").forEachRow { count = $0.int64(0) }
        #expect(count == 1)
    }

    @Test func cachedStatementsAreReusedAndReset() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER)")
        for value in 0..<100 {
            try db.cachedStatement("INSERT INTO t VALUES (?)").run([.integer(Int64(value))])
        }
        let first = try db.cachedStatement("SELECT sum(x) FROM t")
        var sum: Int64 = 0
        try first.forEachRow { sum = $0.int64(0) }
        #expect(sum == 4950)
        #expect(try db.cachedStatement("SELECT sum(x) FROM t") === first)
    }

    /// A connection with cached statements is freed and closed when released: SQLite
    /// then removes the WAL file, which it keeps while any connection is open.
    @Test func aConnectionWithCachedStatementsClosesWhenReleased() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/closing.sqlite"
        do {
            let db = try SQLiteConnection(path: path)
            try db.execute("CREATE TABLE t (x INTEGER)")
            try db.cachedStatement("INSERT INTO t VALUES (?)").run([.integer(1)])
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        // A statement outliving its connection stays usable until it goes.
        var statement: SQLiteStatement?
        do {
            let db = try SQLiteConnection(path: path)
            statement = try db.prepare("SELECT count(*) FROM t")
        }
        var count: Int64 = 0
        try statement?.forEachRow { count = $0.int64(0) }
        #expect(count == 1)
        statement = nil
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func errorsCarryCodesAndSQLiteDetails() throws {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE t (x INTEGER UNIQUE)")
        try db.prepare("INSERT INTO t VALUES (1)").run()
        let duplicate = #expect(throws: AccordError.self) { try db.prepare("INSERT INTO t VALUES (1)").run() }
        #expect(duplicate?.code == .storageError)
        #expect(duplicate?.details["sqlite_code"] == "2067")  // SQLITE_CONSTRAINT_UNIQUE
        let syntax = #expect(throws: AccordError.self) { try db.prepare("SELEKT 1") }
        #expect(syntax?.code == .storageError)
    }

    @Test func aFileThatIsNotADatabaseIsCorrupt() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("garbage.db")
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: AccordError.self) { _ = try SQLiteStorageAdapter(path: path) }
        #expect(error?.code == .storageCorrupt)
    }

    @Test func writingThroughAReadOnlyConnectionIsReadOnly() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("ro.db")
        do {
            let writer = try SQLiteConnection(path: path)
            try writer.execute("CREATE TABLE t (x)")
        }
        var settings = SQLiteConnection.Settings()
        settings.readOnly = true
        let reader = try SQLiteConnection(path: path, settings: settings)
        let error = #expect(throws: AccordError.self) { try reader.execute("INSERT INTO t VALUES (1)") }
        #expect(error?.code == .storageReadOnly)
    }

    @Test func walAndFullSyncAreTheDefaults() throws {
        let dir = try TemporaryDirectory()
        let db = try SQLiteConnection(path: dir.file("w.db"))
        var mode = ""
        try db.prepare("PRAGMA journal_mode").forEachRow { mode = $0.text(0) }
        var synchronous: Int64 = -1
        try db.prepare("PRAGMA synchronous").forEachRow { synchronous = $0.int64(0) }
        #expect(mode == "wal")
        #expect(synchronous == 2)  // FULL
    }
}
