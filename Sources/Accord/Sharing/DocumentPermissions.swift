public import Foundation

/// One field of ``Documents/update(_:title:tags:thumbnailBlobID:metadata:)``: leave it,
/// set it, or clear it.
public enum FieldChange<Value: Sendable & Hashable>: Sendable, Hashable {
    case unchanged
    case set(Value)
    case clear
}

/// Who may do what with a document (`documents.getPermissions(id)`, owner only).
public struct DocumentPermissions: Sendable, Hashable {
    public var owner: String
    /// Explicit grants by user id.
    public var members: [String: DocumentPermission]
    /// The floor every signed-in user gets; nil when unset.
    public var linkAccess: DocumentPermission?
    /// Grants to groups, by `groupType/groupId`.
    public var groups: [String: DocumentPermission] = [:]
    /// Pending invitations by (normalized) email address.
    public var invitations: [String: DocumentPermission] = [:]
}

/// An invitation to an address nobody has signed in with yet
/// (``Documents/listPendingInvitations(_:)``).
public struct InvitationInfo: Sendable, Hashable {
    /// Trimmed and lower-cased.
    public var email: String
    public var permission: DocumentPermission
    public var invitedBy: String
    public var invitedAt: Date
}

/// A document's link access (`documents.getLinkAccess(id)`) and who last changed it.
public struct LinkAccess: Sendable, Hashable {
    /// The floor every signed-in user gets; nil when unset.
    public var level: DocumentPermission?
    /// Who last set or removed it, and when; nil while it was never changed.
    public var changedBy: String?
    public var changedAt: Date?

    public init(level: DocumentPermission?, changedBy: String? = nil, changedAt: Date? = nil) {
        self.level = level
        self.changedBy = changedBy
        self.changedAt = changedAt
    }
}
