public import AccordCRDT
public import AccordStore
import Foundation

/// The per-document lock of a cluster: a PostgreSQL session advisory lock on a
/// connection of its own, so two nodes never fold one document at once, nor create one
/// (see ``SharedStorage``).
///
/// A session lock, not a transaction one, because a fold reads and commits in two
/// transactions of the storage connection with the replay in between. If this
/// connection is lost mid-fold its locks go with it; the fold still re-reads the
/// stored metadata before committing and gives up when another fold landed meanwhile.
public final class PostgresDocumentLock: SharedDocumentLock, @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `connection` is used only under `lock`.
    private let lock = NSLock()
    private let connection: PostgresConnection
    private let schema: String

    public init(url: String, schema: String) throws(AccordError) {
        try PostgresStorageSchema.checkName(schema)
        self.schema = schema
        connection = try PostgresConnection(url: url)
    }

    public func tryLock(_ id: DocumentID) throws(AccordError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if !connection.isConnected { try connection.connect() }
        let rows = try connection.query(
            "SELECT pg_try_advisory_lock(hashtextextended($1, 7103952116482094))", [.text(lockName(id))])
        return rows.rows.first?[0] == [1]
    }

    public func lock(_ id: DocumentID) throws(AccordError) {
        lock.lock()
        defer { lock.unlock() }
        if !connection.isConnected { try connection.connect() }
        _ = try connection.query("SELECT pg_advisory_lock(hashtextextended($1, 7103952116482094))", [.text(lockName(id))])
    }

    public func unlock(_ id: DocumentID) {
        lock.locked {
            _ = try? connection.query(
                "SELECT pg_advisory_unlock(hashtextextended($1, 7103952116482094))", [.text(lockName(id))])
        }
    }

    public func lock(named name: String) throws(AccordError) {
        lock.lock()
        defer { lock.unlock() }
        if !connection.isConnected { try connection.connect() }
        _ = try connection.query("SELECT pg_advisory_lock(hashtextextended($1, 7103952116482095))", [.text(schema + "/" + name)])
    }

    public func unlock(named name: String) {
        lock.locked {
            _ = try? connection.query(
                "SELECT pg_advisory_unlock(hashtextextended($1, 7103952116482095))", [.text(schema + "/" + name)])
        }
    }

    /// Document locks and named ones hash with different seeds: two key spaces.
    private func lockName(_ id: DocumentID) -> String { schema + "/" + id.rawValue }
}
