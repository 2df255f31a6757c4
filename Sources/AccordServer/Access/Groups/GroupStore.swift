import Foundation
import AccordCRDT
import AccordStore

/// Group membership, `(groupType, groupId) → users`, and which documents each group is
/// granted, in the server's storage next to the access rows.
///
/// - category `server.group`, key `type/id`, value `{"members":[user,...]}` (sorted),
///   absent for a group without members;
/// - category `server.group-documents`, key `type/id`, value `[documentID,...]`
///   (sorted): the documents whose access row grants the group a role.
///
/// Everything is read once into memory (groups are few and small next to documents) and
/// written through, so a role check costs a dictionary lookup. Thread safety: every
/// method may be called from any thread (one lock, never held while calling out).
///
/// In a cluster each write is a read-modify-write of a row other nodes write too: it
/// holds the group's cluster-wide lock and re-reads the row first, so two nodes
/// changing one group at once both land (each writing back only the list it held lost
/// one of them).
public final class GroupStore: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: the dictionaries are only touched under `lock`.
    static let membersCategory = StorageCategory("server.group")
    static let documentsCategory = StorageCategory("server.group-documents")

    private let storage: SerialStorage
    private let clusterLock: (any SharedDocumentLock)?
    private let lock = NSLock()
    private var loaded = false
    private var members: [GroupKey: Set<String>] = [:]
    private var groupsOfUser: [String: Set<GroupKey>] = [:]
    private var documents: [GroupKey: Set<String>] = [:]

    init(storage: SerialStorage, clusterLock: (any SharedDocumentLock)? = nil) {
        self.storage = storage
        self.clusterLock = clusterLock
    }

    private struct MembersRow: Codable { var members: [String] }

    // MARK: Reading

    /// The groups `user` belongs to.
    public func groups(of user: String) throws(AccordError) -> Set<GroupKey> {
        try locked { groupsOfUser[user] ?? [] }
    }

    /// The members of a group (empty for an unknown group).
    public func members(of group: GroupKey) throws(AccordError) -> Set<String> {
        try locked { members[group] ?? [] }
    }

    /// The documents granted to a group, sorted.
    public func documents(of group: GroupKey) throws(AccordError) -> [DocumentID] {
        try locked { (documents[group] ?? []).sorted().compactMap { DocumentID(rawValue: $0) } }
    }

    /// One page of every group with members or granted documents, in `type/id` order
    /// (Swift's `String` order): the first `limit` whose key sorts after `after` (from the
    /// start when nil), with their members (sorted) and how many documents they are
    /// granted, and the key to pass as `after` for the next page, nil on the last one.
    public func list(after: String?, limit: Int) throws(AccordError)
        -> (page: [(group: GroupKey, members: [String], documents: Int)], next: String?)
    {
        precondition(limit > 0, "a page holds at least one group")
        return try locked {
            let keys = Set(members.keys).union(documents.keys)
                .filter { group in after.map { group.rawValue > $0 } ?? true }
                .sorted { $0.rawValue < $1.rawValue }
            let page = keys.prefix(limit).map { group in
                (group: group, members: (members[group] ?? []).sorted(), documents: documents[group]?.count ?? 0)
            }
            return (page, keys.count > limit ? page.last?.group.rawValue : nil)
        }
    }

    // MARK: Writing

    /// Adds or removes members; returns whether the group changed.
    @discardableResult
    public func update(_ group: GroupKey, adding added: Set<String> = [], removing removed: Set<String> = [])
        throws(AccordError) -> Bool
    {
        for user in added.union(removed) { try UserIDRule.validate(user) }
        return try lockedAsStored(group) { () throws(AccordError) -> Bool in
            let before = members[group] ?? []
            let after = before.union(added).subtracting(removed)
            guard after != before else { return false }
            let key = group.rawValue
            if after.isEmpty {
                try storage.withAdapter { try $0.commit([.delete(Self.membersCategory, key: key)]) }
            } else {
                let bytes = try Self.encode(MembersRow(members: after.sorted()))
                try storage.withAdapter { try $0.commit([.put(Self.membersCategory, key: key, value: bytes)]) }
            }
            members[group] = after.isEmpty ? nil : after
            for user in after.subtracting(before) { groupsOfUser[user, default: []].insert(group) }
            for user in before.subtracting(after) {
                groupsOfUser[user]?.remove(group)
                if groupsOfUser[user]?.isEmpty == true { groupsOfUser[user] = nil }
            }
            return true
        }
    }

    /// Records that a document grants (or no longer grants) a group a role.
    func setGranted(_ document: DocumentID, to group: GroupKey, _ granted: Bool) throws(AccordError) {
        try lockedAsStored(group) { () throws(AccordError) in
            var set = documents[group] ?? []
            let changed = granted ? set.insert(document.rawValue).inserted : set.remove(document.rawValue) != nil
            guard changed else { return }
            let key = group.rawValue
            if set.isEmpty {
                try storage.withAdapter { try $0.commit([.delete(Self.documentsCategory, key: key)]) }
            } else {
                let bytes = try Self.encode(set.sorted())
                try storage.withAdapter { try $0.commit([.put(Self.documentsCategory, key: key, value: bytes)]) }
            }
            documents[group] = set.isEmpty ? nil : set
        }
    }

    /// Reads one group's rows again, because another node of a cluster changed them
    /// (this store's memory is only written through by this process). Returns who
    /// joined and who left it since this store last looked.
    @discardableResult
    public func reload(_ group: GroupKey) throws(AccordError) -> (added: Set<String>, removed: Set<String>) {
        try locked { () throws(AccordError) -> (added: Set<String>, removed: Set<String>) in try reloadWhileLocked(group) }
    }

    /// ``reload(_:)`` for a caller holding `lock`.
    private func reloadWhileLocked(_ group: GroupKey) throws(AccordError) -> (added: Set<String>, removed: Set<String>) {
        let after = try storedMembers(group.rawValue) ?? []
        let granted = try storedDocuments(group.rawValue) ?? []
        documents[group] = granted.isEmpty ? nil : granted
        let before = members[group] ?? []
        members[group] = after.isEmpty ? nil : after
        for user in after.subtracting(before) { groupsOfUser[user, default: []].insert(group) }
        for user in before.subtracting(after) {
            groupsOfUser[user]?.remove(group)
            if groupsOfUser[user]?.isEmpty == true { groupsOfUser[user] = nil }
        }
        return (after.subtracting(before), before.subtracting(after))
    }

    // MARK: Locking and loading

    /// `body` under `lock` with the group's rows as stored: in a cluster, under the
    /// group's cluster-wide lock and after reading them again (another node may have
    /// written them since); alone, this store's memory is the stored rows.
    private func lockedAsStored<T>(_ group: GroupKey, _ body: () throws(AccordError) -> T) throws(AccordError) -> T {
        guard let clusterLock else { return try locked(body) }
        let name = "group/" + group.rawValue
        try clusterLock.lock(named: name)
        defer { clusterLock.unlock(named: name) }
        return try locked { () throws(AccordError) -> T in
            try reloadWhileLocked(group)
            return try body()
        }
    }

    private func locked<T>(_ body: () throws(AccordError) -> T) throws(AccordError) -> T {
        lock.lock()
        defer { lock.unlock() }
        if !loaded {
            try load()
            loaded = true
        }
        return try body()
    }

    private func load() throws(AccordError) {
        let memberKeys = try storage.withAdapter { try $0.keys(in: Self.membersCategory) }
        for raw in memberKeys {
            guard let group = GroupKey(rawValue: raw), let listed = try storedMembers(raw) else { throw Self.corrupt(raw) }
            members[group] = listed
            for user in listed { groupsOfUser[user, default: []].insert(group) }
        }
        let documentKeys = try storage.withAdapter { try $0.keys(in: Self.documentsCategory) }
        for raw in documentKeys {
            guard let group = GroupKey(rawValue: raw), let ids = try storedDocuments(raw) else { throw Self.corrupt(raw) }
            documents[group] = ids
        }
    }

    /// The members row of group `key` as stored, nil when it has none.
    private func storedMembers(_ key: String) throws(AccordError) -> Set<String>? {
        guard let bytes = try storage.withAdapter({ try $0.read(Self.membersCategory, key: key) }) else { return nil }
        guard let row = try? JSONDecoder().decode(MembersRow.self, from: Data(bytes)) else { throw Self.corrupt(key) }
        return Set(row.members)
    }

    /// The granted-documents row of group `key` as stored, nil when it has none.
    private func storedDocuments(_ key: String) throws(AccordError) -> Set<String>? {
        guard let bytes = try storage.withAdapter({ try $0.read(Self.documentsCategory, key: key) }) else { return nil }
        guard let ids = try? JSONDecoder().decode([String].self, from: Data(bytes)) else { throw Self.corrupt(key) }
        return Set(ids)
    }

    private static func corrupt(_ key: String) -> AccordError {
        AccordError(.storageCorrupt, "the group row \(key) is unreadable", details: ["group": key])
    }

    private static func encode(_ value: some Encodable) throws(AccordError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value))
        } catch {
            throw AccordError(.storageError, "cannot encode a group row: \(error)")
        }
    }
}
