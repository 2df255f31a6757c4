public import AccordStore

/// A change to the server's directory that users connected on `/v1/sync` hear of as
/// `PermissionEvent` / `DocumentMetadataChangedEvent` frames (``DirectoryEvents``).
///
/// Access changes carry the row before and after, so whoever applies them can tell
/// each user's effective role before from after without reading the store again
/// (which another call may have changed meanwhile).
/// One user's effective role on a document before and after a change.
public struct RoleTransition: Sendable, Hashable {
    public var user: String
    public var before: Role?
    public var after: Role?

    public init(user: String, before: Role?, after: Role?) {
        self.user = user
        self.before = before
        self.after = after
    }
}

public enum DirectoryChange: Sendable, Hashable {
    /// Who may access the document changed (grant, revoke, link access, transfer).
    /// `cause` is one of `DirectoryMessage.Cause`.
    case access(DocumentID, before: DocumentAccess, after: DocumentAccess, cause: String)
    /// Its directory entry changed (title, tags, metadata, thumbnail).
    case entry(DocumentID)
    /// It was created (REST, an alias, or create-on-connect) with this owner.
    case created(DocumentID, owner: String)
    /// It was deleted; `before` is its access row as it was.
    case deleted(DocumentID, before: DocumentAccess)
    /// Users joined or left a group: their roles on the group's documents may change.
    case membership(GroupKey, added: Set<String>, removed: Set<String>)
    /// Roles on a document changed for these users, worked out by the caller (a
    /// collection's members or documents changed).
    case roles(DocumentID, [RoleTransition], cause: String)

    /// The document concerned; nil for a membership change (it concerns the group's documents).
    public var documentID: DocumentID? {
        switch self {
        case .access(let id, _, _, _), .entry(let id), .created(let id, _), .deleted(let id, _), .roles(let id, _, _): id
        case .membership: nil
        }
    }
}
