import AccordCRDT

/// Claims a schema for one process: a PostgreSQL session advisory lock held on a
/// connection of its own for as long as this value lives.
///
/// Until `accord serve` runs as a cluster, two servers writing one schema would each
/// number a document's log entries on their own, and the second's writes would be
/// refused; the lock makes the second server refuse to start instead. It is a guard,
/// not a lease: if the lock's connection is lost, the lock goes with it (PostgreSQL
/// releases session locks when the session ends), and nothing re-takes it.
public final class PostgresSchemaLock {
    private let connection: PostgresConnection
    public let schema: String

    /// Takes the lock, or throws `POSTGRES_SCHEMA_IN_USE` when another process holds it.
    public init(url: String, schema: String) throws(AccordError) {
        try PostgresStorageSchema.checkName(schema)
        self.schema = schema
        connection = try PostgresConnection(url: url)
        let taken = try connection.query(
            "SELECT pg_try_advisory_lock(hashtextextended($1, 7103952116482092))", [.text(schema)])
        guard taken.rows.first?[0] == [1] else {
            throw AccordError(
                .postgresSchemaInUse,
                "another process uses PostgreSQL schema \(schema); one accord serve per schema until clustering lands",
                details: ["schema": schema])
        }
    }
}
