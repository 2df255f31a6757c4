public import AccordCRDT
import AccordStore

/// A document whose access row a sign-in changed: an invitation became a member grant.
public struct RedeemedInvitation: Sendable {
    public let id: DocumentID
    public let before: DocumentAccess
    public let after: DocumentAccess
}

extension DocumentDirectory {
    /// Called for every authenticated request (REST or sync) whose token carries an
    /// `email` claim. The first user to present an address claims it; their pending
    /// invitations to it become member grants (never lowering a grant they have), listed
    /// in their shared-with-me listing. Later requests cost a dictionary lookup.
    ///
    /// Another user presenting a claimed address gets nothing from it (the first wins).
    /// - Returns: the rows changed, for the caller to report as grants.
    public func signIn(user: String, email: EmailAddress) throws(AccordError) -> [RedeemedInvitation] {
        let store = access.invitations
        if store.isSettled(email) { return [] }
        return try store.withLock { () throws(AccordError) -> [RedeemedInvitation] in
            let claimed: String
            if let existing = try store.user(of: email) {
                claimed = existing
            } else {
                try store.claim(email, for: user)
                claimed = user
            }
            guard claimed == user else {
                store.markSettled(email, user: claimed)
                return []
            }
            var redeemed: [RedeemedInvitation] = []
            for id in try store.documents(invitedAs: email) where try documents.contains(id) {
                if let change = try redeem(email, in: id, for: user) { redeemed.append(change) }
            }
            // Only after every row is converted: a crash before this redeems again (idempotent).
            try store.setDocuments([], invitedAs: email)
            store.markSettled(email, user: user)
            return redeemed
        }
    }

    /// Turns the invitation to `email` in `id`'s row into `user`'s grant; nil when the
    /// row holds none (cancelled since) or nothing changed.
    private func redeem(_ email: EmailAddress, in id: DocumentID, for user: String) throws(AccordError) -> RedeemedInvitation? {
        var before: DocumentAccess?
        let result = try access.update(id) { row throws(AccordError) in
            before = row
            guard var current = row, let invitation = current.invitations?[email.rawValue] else { return }
            current.setInvitation(email, nil)
            if user != current.owner {
                if current.members[user] == nil { current.setMemberListing(user, try appendShared(id, member: user)) }
                current.members[user] = max(current.members[user] ?? invitation.role, invitation.role)
            }
            row = current
        }
        guard result.changed, let before, let after = result.access else { return nil }
        return RedeemedInvitation(id: id, before: before, after: after)
    }

    /// Adds `id` to the documents `email` is invited to. Call holding the invitations
    /// lock, inside the row's update, after every other check: it reads no access row
    /// (that lock is held) and writes only when it does not throw.
    /// - Throws: `TOO_MANY_INVITATIONS` when the address has ``PendingInvitation/maxPerAddress``.
    func indexInvitation(_ email: EmailAddress, to id: DocumentID) throws(AccordError) {
        let store = access.invitations
        let ids = try store.documents(invitedAs: email)
        guard !ids.contains(id) else { return }
        guard ids.count < PendingInvitation.maxPerAddress else {
            throw AccordError(
                .tooManyInvitations, "\(email) has \(PendingInvitation.maxPerAddress) pending invitations",
                details: ["email": email.rawValue, "limit": String(PendingInvitation.maxPerAddress)])
        }
        try store.setDocuments(ids + [id], invitedAs: email)
    }

    /// Drops `id` from the documents `email` is invited to (holding the invitations lock).
    func unindexInvitation(_ email: EmailAddress, from id: DocumentID) throws(AccordError) {
        let store = access.invitations
        let ids = try store.documents(invitedAs: email)
        guard ids.contains(id) else { return }
        try store.setDocuments(ids.filter { $0 != id }, invitedAs: email)
    }
}
