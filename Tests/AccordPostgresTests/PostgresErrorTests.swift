import Testing
import AccordCRDT
import AccordPostgres
import AccordStore

/// What the adapter says when PostgreSQL is not there or the input is wrong.
@Suite struct PostgresErrorTests {
    @Test func anUnreachableServerIsPostgresUnavailable() {
        // Port 1 on the loopback: nothing listens there, the connect is refused at once.
        let error = #expect(throws: AccordError.self) {
            _ = try PostgresStorageAdapter(url: "postgres://accord@127.0.0.1:1/postgres?connect_timeout=2")
        }
        #expect(error?.code == .postgresUnavailable)
        #expect(error?.details["reason"]?.isEmpty == false)
    }

    @Test func aMalformedURLIsRefusedWithoutEchoingIt() {
        let error = #expect(throws: AccordError.self) {
            _ = try PostgresStorageAdapter(url: "postgres://u:secret@host/db?nonsense_option=1")
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("secret") == false)
    }

    @Test(arguments: ["", "Upper", "1leading", "semi;colon", "quote\"d", String(repeating: "a", count: 64)])
    func aBadSchemaNameIsRefusedBeforeAnySQL(_ schema: String) throws {
        let database = try PostgresTestDatabase()
        let error = #expect(throws: AccordError.self) {
            _ = try PostgresStorageAdapter(url: database.url, schema: schema)
        }
        #expect(error?.code == .invalidArgument)
    }

    /// An append out of order fails the whole batch, with the coded error, and the
    /// records put before it in the same batch are not there.
    @Test func aFailedBatchLeavesNothingBehind() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let adapter = try database.adapter()
        let log = StorageCategory("doc.log")
        try adapter.commit([.append(log, key: "a", sequence: 5, value: [1])])
        let error = #expect(throws: AccordError.self) {
            try adapter.commit([
                .put(StorageCategory("doc.meta"), key: "a", value: [7]),
                .append(log, key: "a", sequence: 6, value: [2]),
                .append(log, key: "a", sequence: 6, value: [3]),
            ])
        }
        #expect(error?.code == .invalidArgument)
        #expect(try adapter.read(StorageCategory("doc.meta"), key: "a") == nil)
        #expect(try adapter.readLog(log, key: "a").map(\.sequence) == [5])
        // The adapter is usable afterwards.
        try adapter.commit([.append(log, key: "a", sequence: 6, value: [2])])
        #expect(try adapter.readLog(log, key: "a").map(\.sequence) == [5, 6])
    }

    /// A connection the server ends (an operator's pg_terminate_backend, a failover) is
    /// replaced on the next call; reads and writes go on without an error.
    @Test func aTerminatedConnectionIsReplacedOnTheNextCall() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let adapter = try database.adapter()
        let category = StorageCategory("doc.meta")
        try adapter.commit([.put(category, key: "k", value: [1])])
        let admin = try database.connection()
        let first = adapter.connection.backendPID
        let terminated = try admin.query("SELECT pg_terminate_backend(($1::bigint)::int)", [.int64(Int64(first))])
        #expect(terminated.rows.first?[0] == [1])
        try adapter.commit([.put(category, key: "k", value: [2])])
        #expect(try adapter.read(category, key: "k") == [2])
        let second = adapter.connection.backendPID
        #expect(second != first && second != 0)
        _ = try admin.query("SELECT pg_terminate_backend(($1::bigint)::int)", [.int64(Int64(second))])
        #expect(try adapter.read(category, key: "k") == [2])
    }
}

/// A schema written by a newer layout is refused, and nothing in it is touched.
@Suite struct PostgresLayoutVersionTests {
    @Test func aNewerLayoutIsRefusedUntouched() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        _ = try database.adapter()
        let admin = try database.connection()
        try admin.execute("UPDATE \(database.schema()).accord_meta SET version = 99")
        try admin.execute("DROP FUNCTION \(database.schema()).accord_append")
        let error = #expect(throws: AccordError.self) { _ = try database.adapter() }
        #expect(error?.code == .storageError)
        #expect(error?.details["schema_version"] == "99")
        let function = try admin.query(
            "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND proname = 'accord_append'",
            [.text(database.schema())])
        #expect(function.firstInt64 == 0, "the refused open re-created the function")
    }
}
