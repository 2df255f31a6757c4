import AccordCRDT
import AccordStore

/// What one user hears of one ``DirectoryChange``: a permission change and the state
/// of their directory entry. Decided by ``plan(_:current:joined:)`` without I/O; the
/// sync hub renders the entry and sends the frames.
struct DirectoryNotice: Hashable, Sendable {
    enum Entry: Hashable, Sendable {
        /// The entry as a user with this role sees it.
        case updated(Role)
        /// Gone for this user: deleted, or no access any more.
        case deleted
    }

    var user: String
    /// (before, after, cause) when the user's effective role changed.
    var permission: (before: Role?, after: Role?, cause: String)?
    var entry: Entry

    static func == (a: Self, b: Self) -> Bool {
        a.user == b.user && a.entry == b.entry && a.permission?.before == b.permission?.before
            && a.permission?.after == b.permission?.after && a.permission?.cause == b.permission?.cause
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(user)
        hasher.combine(entry)
    }

    /// Who hears of `change`, sorted by user.
    ///
    /// The users considered are the document's owner and members (before and after) and
    /// `joined`, the users with a connection in its room: link access reaches every
    /// signed-in user, but only those who have the document open know of it. A user
    /// whose role did not change hears of an access change not at all; every user with
    /// a role hears of an entry change.
    /// - Parameter current: the access row now, for ``DirectoryChange/entry(_:)``.
    /// - Parameters:
    ///   - groupMembers: the members of every group the rows grant (they are users
    ///     concerned too); `groupsOf` the groups a user belongs to, for their roles.
    static func plan(
        _ change: DirectoryChange, current: DocumentAccess?, joined: Set<String>, groupMembers: Set<String> = [],
        groupsOf: (String) -> Set<GroupKey> = { _ in [] }, collectionRole: (String) -> Role? = { _ in nil }
    ) -> [DirectoryNotice] {
        let joined = joined.union(groupMembers)
        // A collection's grant counts too (unchanged by these changes, so before = after for it).
        func role(_ row: DocumentAccess, _ user: String, _ groups: Set<GroupKey>) -> Role? {
            let direct = row.role(of: user, inGroups: groups)
            guard direct != .owner, let collected = collectionRole(user) else { return direct }
            return max(direct ?? collected, collected)
        }
        switch change {
        case .membership:
            return []  // per document, see SyncHub.publishMembership
        case .roles(_, let transitions, let cause):
            return transitions.filter { $0.before != $0.after }.sorted { $0.user < $1.user }.map {
                DirectoryNotice(
                    user: $0.user, permission: ($0.before, $0.after, cause), entry: $0.after.map(Entry.updated) ?? .deleted)
            }
        case .access(_, let before, let after, let cause):
            return users(before, after, joined).compactMap { user in
                let groups = groupsOf(user)
                let old = role(before, user, groups), new = role(after, user, groups)
                guard old != new else { return nil }
                return DirectoryNotice(
                    user: user, permission: (old, new, cause), entry: new.map(Entry.updated) ?? .deleted)
            }
        case .entry:
            guard let current else { return [] }
            return users(current, current, joined).compactMap { user in
                role(current, user, groupsOf(user)).map { DirectoryNotice(user: user, permission: nil, entry: .updated($0)) }
            }
        case .created(_, let owner):
            return [DirectoryNotice(
                user: owner, permission: (nil, .owner, DirectoryMessage.Cause.create), entry: .updated(.owner))]
        case .deleted(_, let before):
            return users(before, before, joined).compactMap { user in
                role(before, user, groupsOf(user)).map {
                    DirectoryNotice(user: user, permission: ($0, nil, DirectoryMessage.Cause.delete), entry: .deleted)
                }
            }
        }
    }

    private static func users(_ before: DocumentAccess, _ after: DocumentAccess, _ joined: Set<String>) -> [String] {
        var users = joined
        users.insert(before.owner)
        users.insert(after.owner)
        users.formUnion(before.members.keys)
        users.formUnion(after.members.keys)
        return users.sorted()
    }
}
