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
        try advisory("pg_try_advisory_lock", documentKey(id), space: Self.documentSpace)
    }

    public func lock(_ id: DocumentID) throws(AccordError) {
        _ = try advisory("pg_advisory_lock", documentKey(id), space: Self.documentSpace)
    }

    public func unlock(_ id: DocumentID) {
        _ = try? advisory("pg_advisory_unlock", documentKey(id), space: Self.documentSpace, reconnecting: false)
    }

    public func lock(named name: String) throws(AccordError) {
        _ = try advisory("pg_advisory_lock", schema + "/" + name, space: Self.namedSpace)
    }

    public func unlock(named name: String) {
        _ = try? advisory("pg_advisory_unlock", schema + "/" + name, space: Self.namedSpace, reconnecting: false)
    }

    /// Document locks and named ones hash with different seeds: two key spaces.
    private static let documentSpace = 7103952116482094
    private static let namedSpace = 7103952116482095

    private func documentKey(_ id: DocumentID) -> String { schema + "/" + id.rawValue }

    /// Calls advisory-lock `function` on `key` hashed into `space`, first reconnecting a
    /// lost connection when `reconnecting` (an unlock does not: the locks went with the
    /// session); whether it answered true (a try-lock that took the lock).
    private func advisory(_ function: String, _ key: String, space: Int, reconnecting: Bool = true) throws(AccordError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if reconnecting, !connection.isConnected { try connection.connect() }
        let rows = try connection.query("SELECT \(function)(hashtextextended($1, \(space)))", [.text(key)])
        return rows.rows.first?[0] == [1]
    }
}
