import AccordCRDT
import AccordPostgres
import Foundation

/// The throwaway PostgreSQL cluster scripts/test.sh starts, with a fresh schema per use.
///
/// There is no fallback and no skip: without `$ACCORD_POSTGRES_URL` every test that
/// needs PostgreSQL fails and says how to get one.
struct PostgresTestDatabase {
    let url: String
    /// A schema name no other test uses; `schema(slot)` derives more from it.
    let schemaPrefix: String

    init() throws {
        guard let url = ProcessInfo.processInfo.environment["ACCORD_POSTGRES_URL"], !url.isEmpty else {
            throw AccordError(
                .invalidArgument,
                "ACCORD_POSTGRES_URL is not set: run the tests through scripts/test.sh (make test), which starts a "
                    + "throwaway PostgreSQL cluster with scripts/postgres.sh")
        }
        self.url = url
        schemaPrefix = "t" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    }

    /// The port in `url` (`postgres://user@host:port/db`, as scripts/postgres.sh prints).
    var port: Int {
        let afterHost = url.split(separator: "@").last.map(String.init) ?? url
        let hostPort = afterHost.split(separator: "/").first.map(String.init) ?? afterHost
        return Int(hostPort.split(separator: ":").last ?? "") ?? 5432
    }

    /// `url` with another port, e.g. a proxy's in front of the database.
    func url(port: Int) -> String {
        url.replacingOccurrences(of: ":\(self.port)/", with: ":\(port)/")
    }

    func schema(_ slot: Int = 0) -> String { "\(schemaPrefix)_\(slot)" }

    func adapter(_ slot: Int = 0) throws -> PostgresStorageAdapter {
        try PostgresStorageAdapter(url: url, schema: schema(slot))
    }

    /// A plain connection for checks beside the adapter (pg_stat_activity, raw rows).
    func connection() throws -> PostgresConnection {
        try PostgresConnection(url: url)
    }

    /// Drops every schema this value handed out.
    func dropSchemas() throws {
        let admin = try connection()
        let rows = try admin.query(
            "SELECT nspname::bytea FROM pg_namespace WHERE nspname LIKE $1", [.text(schemaPrefix + "\\_%")])
        for row in rows.rows {
            let name = String(decoding: row[0] ?? [], as: UTF8.self)
            try admin.execute("DROP SCHEMA \(name) CASCADE")
        }
    }
}
