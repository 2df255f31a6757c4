import AccordCRDT

/// Claims a schema for one process, or for the nodes of a cluster: a PostgreSQL session
/// advisory lock held on a connection of its own for as long as this value lives.
///
/// A server that is not a cluster node numbers a document's log entries itself, so a
/// second server writing the schema would collide with it: a single node takes the lock
/// exclusively, cluster nodes (`shared`) take it shared, and a server that cannot get
/// its kind refuses to start. It is a guard, not a lease: if the lock's connection is
/// lost, the lock goes with it (PostgreSQL releases session locks when the session
/// ends), and nothing re-takes it.
public final class PostgresSchemaLock {
    private let connection: PostgresConnection
    public let schema: String

    /// Takes the lock, or throws `POSTGRES_SCHEMA_IN_USE` when another process holds it.
    public init(url: String, schema: String, shared: Bool = false) throws(AccordError) {
        try PostgresStorageSchema.checkName(schema)
        self.schema = schema
        connection = try PostgresConnection(url: url)
        let function = shared ? "pg_try_advisory_lock_shared" : "pg_try_advisory_lock"
        let taken = try connection.query(
            "SELECT \(function)(hashtextextended($1, 7103952116482092))", [.text(schema)])
        guard taken.rows.first?[0] == [1] else {
            let message = shared
                ? "a single (non-cluster) accord serve uses PostgreSQL schema \(schema); stop it or start it with --cluster"
                : "another process uses PostgreSQL schema \(schema); several nodes on one schema need --cluster on each"
            throw AccordError(.postgresSchemaInUse, message, details: ["schema": schema])
        }
    }
}
