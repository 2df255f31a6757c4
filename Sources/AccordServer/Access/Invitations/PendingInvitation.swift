/// A grant to an email address that no user has signed in with yet, kept in the
/// document's access row (``DocumentAccess/invitations``) until the first user whose
/// token carries that address makes a request; then it becomes their member grant.
public struct PendingInvitation: Sendable, Hashable, Codable {
    /// `reader` or `read-write`.
    public var role: Role
    /// The user who granted it.
    public var invitedBy: String
    /// Milliseconds since 1970, UTC: when it was first granted (a re-grant keeps it).
    public var invitedAt: Int64

    /// Pending invitations one document holds at most (`TOO_MANY_INVITATIONS` beyond).
    public static let maxPerDocument = 1000
    /// Documents one address may be invited to while pending (its index row stays small).
    public static let maxPerAddress = 1000
}

extension DocumentAccess {
    /// Sets or (with nil) removes an invitation, keeping ``invitations`` nil rather than empty.
    mutating func setInvitation(_ email: EmailAddress, _ invitation: PendingInvitation?) {
        var all = invitations ?? [:]
        all[email.rawValue] = invitation
        invitations = all.isEmpty ? nil : all
    }
}
