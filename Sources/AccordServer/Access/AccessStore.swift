import Foundation
public import AccordCRDT
public import AccordStore

/// The access rows of the server's documents, one ``DocumentAccess`` per document id,
/// kept in a ``SerialStorage`` (normally the document store's, so one file holds both).
///
/// A row is stored under category `server.access` with the document id as key and the
/// JSON of ``DocumentAccess`` (sorted keys) as value. A row means something only while its
/// document exists: ``DocumentDirectory`` overwrites a row left behind by a deleted
/// document when the id is created again.
///
/// Thread safety: every method may be called from any thread. Rows are cached after the
/// first read, so keep one access store per storage (as with the document store). Reads
/// and writes are serialized by a lock, which is never held while calling into a
/// ``DocumentStore`` (whose observers may call back here).
public final class AccessStore: Sendable {
    /// Where the rows live in the storage.
    static let category = StorageCategory("server.access")

    let storage: SerialStorage
    /// Set in a cluster: row changes are made under the row's cluster-wide lock from the
    /// row as stored (another node may have written it since this one cached it).
    private let clusterLock: (any SharedDocumentLock)?
    private let state = AccessLock()
    /// Serializes ``DocumentDirectory/create(_:owner:title:tags:)`` across every directory
    /// built on this store, so two creators of one id cannot both write an owner row.
    let creation = NSLock()
    /// Serializes appends to the owned-documents listing (`DocumentDirectory+Owned.swift`),
    /// which creation and ownership transfer both make.
    let listing = NSLock()
    /// Group membership and the documents granted to each group.
    public let groups: GroupStore
    /// Collections and the documents in them.
    public let collections: CollectionStore
    /// Who claimed which email address, and where invitations to unclaimed ones wait.
    public let invitations: InvitationStore

    /// - Parameter clusterLock: the storage's cross-process lock when several servers
    ///   share it (a cluster), so their group changes do not overwrite each other.
    public init(storage: SerialStorage, clusterLock: (any SharedDocumentLock)? = nil) {
        self.storage = storage
        self.clusterLock = clusterLock
        self.groups = GroupStore(storage: storage, clusterLock: clusterLock)
        self.collections = CollectionStore(storage: storage, clusterLock: clusterLock)
        self.invitations = InvitationStore(storage: storage, clusterLock: clusterLock)
    }

    /// The user's effective role on a document with this row: their own grant, the link
    /// floor, their groups' grants and their collections' grants, the highest counting.
    public func effectiveRole(of user: String, in row: DocumentAccess?, on id: DocumentID) throws(AccordError) -> Role? {
        guard let row else { return nil }
        let direct = row.role(of: user, inGroups: row.groups == nil ? [] : try groups.groups(of: user))
        guard direct != .owner, let collected = try collections.role(of: user, on: id) else { return direct }
        return max(direct ?? collected, collected)
    }

    /// The access row of a document, or nil when it has none.
    /// - Throws: `STORAGE_CORRUPT` for a row that is not a valid ``DocumentAccess``,
    ///   storage errors.
    public func access(_ id: DocumentID) throws(AccordError) -> DocumentAccess? {
        try state.withLock { cache throws(AccordError) in try read(id, cache: &cache) }
    }

    /// The user's effective role on a document (see ``DocumentAccess/role(of:)``); nil
    /// when the document has no access row or the user no access.
    public func role(of user: String, on id: DocumentID) throws(AccordError) -> Role? {
        try effectiveRole(of: user, in: try access(id), on: id)
    }

    /// Stores a document's access row, replacing any row it had.
    /// - Throws: `INVALID_ARGUMENT` for an invalid user id, a second owner, or a link floor
    ///   of owner (nothing is written); storage errors.
    public func setAccess(_ access: DocumentAccess, for id: DocumentID) throws(AccordError) {
        try access.validate()
        try state.withLock { cache throws(AccordError) in try write(access, for: id, cache: &cache) }
    }

    /// Drops the cached row of `id`, so the next read goes to the storage (another node
    /// of a cluster changed it).
    public func forgetCached(_ id: DocumentID) {
        try? state.withLock { cache throws(AccordError) in cache[id] = nil }
    }

    /// Removes a document's access row; removing a row that does not exist is not an error.
    public func removeAccess(_ id: DocumentID) throws(AccordError) {
        try state.withLock { cache throws(AccordError) in
            try storage.withAdapter { try $0.commit([.delete(Self.category, key: id.rawValue)]) }
            cache[id] = nil
        }
    }

    /// Reads, changes and writes a row as one step under the lock, so concurrent grants
    /// never lose one another and a permission check made in `change` still holds when
    /// the row is written. `change` sees nil for a document without a row. Nothing is
    /// written when `change` throws or leaves the row as it was. In a cluster the step
    /// holds the row's cluster-wide lock and starts from the row as stored, so grants
    /// made through two nodes at once both land.
    /// - Returns: the row after the change, and whether it changed.
    func update(
        _ id: DocumentID, _ change: (inout DocumentAccess?) throws(AccordError) -> Void
    ) throws(AccordError) -> (access: DocumentAccess?, changed: Bool) {
        let name = "access/" + id.rawValue
        try clusterLock?.lock(named: name)
        defer { clusterLock?.unlock(named: name) }
        return try state.withLock { cache throws(AccordError) in
            if clusterLock != nil { cache[id] = nil }
            let before = try read(id, cache: &cache)
            var after = before
            try change(&after)
            guard after != before else { return (before, false) }
            if let after {
                try after.validate()
                try write(after, for: id, cache: &cache)
            } else {
                try storage.withAdapter { try $0.commit([.delete(Self.category, key: id.rawValue)]) }
                cache[id] = nil
            }
            return (after, true)
        }
    }

    // MARK: Rows (caller holds the lock)

    private func read(
        _ id: DocumentID, cache: inout [DocumentID: DocumentAccess]
    ) throws(AccordError) -> DocumentAccess? {
        if let cached = cache[id] { return cached }
        guard let bytes = try storage.withAdapter({ try $0.read(Self.category, key: id.rawValue) }) else {
            return nil
        }
        let access = try Self.decode(bytes, id: id)
        cache[id] = access
        return access
    }

    private func write(
        _ access: DocumentAccess, for id: DocumentID, cache: inout [DocumentID: DocumentAccess]
    ) throws(AccordError) {
        let bytes = try Self.encode(access, id: id)
        try storage.withAdapter { try $0.commit([.put(Self.category, key: id.rawValue, value: bytes)]) }
        cache[id] = access
    }

    static func encode(_ access: DocumentAccess, id: DocumentID) throws(AccordError) -> [UInt8] {
        let encoder = JSONEncoder()
        // Sorted keys: the same row always has the same bytes.
        encoder.outputFormatting = [.sortedKeys]
        do {
            return Array(try encoder.encode(access))
        } catch {
            throw AccordError(.storageError, "cannot encode the access row of \(id): \(error)")
        }
    }

    static func decode(_ bytes: [UInt8], id: DocumentID) throws(AccordError) -> DocumentAccess {
        let access: DocumentAccess
        do {
            access = try JSONDecoder().decode(DocumentAccess.self, from: Data(bytes))
            try access.validate()
        } catch {
            throw AccordError(
                .storageCorrupt, "the access row of document \(id) is unreadable: \(error)",
                details: ["document": id.rawValue])
        }
        return access
    }
}
