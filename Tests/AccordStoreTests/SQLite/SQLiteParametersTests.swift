import Testing
import AccordCRDT
import AccordStore

/// ``SQLiteParameters`` bound by ``SQLiteStatement/run(_:)``: every kind of value goes
/// in as given, texts borrowed from the one buffer, and the statement is reusable after.
@Suite struct SQLiteParametersTests {
    /// An in-memory database with one table `t (a, b, c)` (columns of no type: values
    /// come back as they were bound).
    private static func database(_ table: String = "t (a, b, c)") throws -> SQLiteConnection {
        let db = try SQLiteConnection(path: ":memory:")
        try db.execute("CREATE TABLE \(table)")
        return db
    }

    private static func rows(_ db: SQLiteConnection) throws -> [[SQLiteValue]] {
        var rows: [[SQLiteValue]] = []
        try db.prepare("SELECT a, b, c FROM t ORDER BY rowid").forEachRow { row in
            rows.append((0..<3).map { row.value(Int32($0)) })
        }
        return rows
    }

    @Test func bindsNullsIntegersRealsAndTextsInOrder() throws {
        let db = try Self.database()
        var parameters = SQLiteParameters(reserving: 9, textBytes: 8)
        parameters.append("héllo\u{0}world")
        parameters.append(Int64.min)
        parameters.append(-0.5)
        parameters.append("")
        parameters.appendNull()
        parameters.append(String(repeating: "long ", count: 40))
        // Set after the fact, texts written out of order into the buffer.
        parameters.appendNulls(3)
        parameters.setText(at: 8) { $0.append(contentsOf: Array("[\"x\"]".utf8)) }
        parameters.set("first", at: 6)
        parameters.set(Int64(7), at: 7)
        #expect(parameters.count == 9)
        try db.cachedStatement("INSERT INTO t VALUES (?, ?, ?), (?, ?, ?), (?, ?, ?)").run(parameters)
        #expect(try Self.rows(db) == [
            [.text("héllo\u{0}world"), .integer(Int64.min), .real(-0.5)],
            [.text(""), .null, .text(String(repeating: "long ", count: 40))],
            [.text("first"), .integer(7), .text("[\"x\"]")],
        ])
    }

    /// With no text bytes at all the buffer is empty: an empty text must still bind as
    /// text, not NULL.
    @Test func anEmptyTextIsTextWhenNoOtherTextHasBytes() throws {
        let db = try Self.database()
        var parameters = SQLiteParameters()
        parameters.append("")
        parameters.append(1.0)
        parameters.appendNull()
        try db.prepare("INSERT INTO t VALUES (?, ?, ?)").run(parameters)
        #expect(try Self.rows(db) == [[.text(""), .real(1), .null]])
    }

    /// Emptied and filled again, the parameters bind only what they hold now; the
    /// statement (reset, bindings cleared) runs again with them.
    @Test func reusedParametersAndStatementsCarryNothingOver() throws {
        let db = try Self.database()
        var parameters = SQLiteParameters()
        for round in 0..<3 {
            parameters.removeAll()
            parameters.append("round \(round)")
            parameters.append(Int64(round))
            if round == 1 { parameters.appendNull() } else { parameters.append("x") }
            try db.cachedStatement("INSERT INTO t VALUES (?, ?, ?)").run(parameters)
        }
        #expect(try Self.rows(db) == [
            [.text("round 0"), .integer(0), .text("x")],
            [.text("round 1"), .integer(1), .null],
            [.text("round 2"), .integer(2), .text("x")],
        ])
    }

    @Test func aFailedRunThrowsAndLeavesTheStatementUsable() throws {
        let db = try Self.database("t (a UNIQUE, b, c)")
        var parameters = SQLiteParameters()
        parameters.append("same")
        parameters.append(Int64(1))
        parameters.append(Int64(2))
        let statement = try db.cachedStatement("INSERT INTO t VALUES (?, ?, ?)")
        try statement.run(parameters)
        let error = #expect(throws: AccordError.self) { try statement.run(parameters) }
        #expect(error?.code == .storageError)
        parameters.set("other", at: 0)
        try statement.run(parameters)
        #expect(try Self.rows(db).map { $0[0] } == [.text("same"), .text("other")])
    }
}
