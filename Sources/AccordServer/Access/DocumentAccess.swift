import AccordCRDT

/// Who may do what with one document: its owner, explicit grants, and a link-access
/// floor that applies to every signed-in user.
///
/// ```swift
/// var access = DocumentAccess(owner: "alice")
/// access.members["bob"] = .readWrite
/// access.linkAccess = .reader
/// access.role(of: "bob")    // .readWrite
/// access.role(of: "carol")  // .reader, from the link floor
/// ```
///
/// ``AccessStore`` keeps one of these per document, as the JSON of this type.
public struct DocumentAccess: Sendable, Hashable, Codable {
    /// The user id (token `sub`) of the creator.
    public var owner: String
    /// Explicit grants. The owner need not be listed (a listing never lowers them), and
    /// nobody else can hold ``Role/owner``.
    public var members: [String: Role]
    /// The role every signed-in user has at least: nil, ``Role/reader`` or ``Role/readWrite``.
    public var linkAccess: Role?
    /// Who last set or removed ``linkAccess`` and when (milliseconds since 1970, UTC);
    /// nil while it was never changed. Answered by `GET …/link-access`.
    public var linkAccessChangedBy: String?
    public var linkAccessChangedAt: Int64?
    /// True for a user's root document (``DocumentDirectory/rootDocument(of:)``), which
    /// is never shared, transferred or deleted; nil otherwise (so other rows keep their bytes).
    public var isRoot: Bool?
    /// The sequence of this document's entry in its owner's listing
    /// (`DocumentDirectory+Owned.swift`); an entry with another sequence is stale.
    public var ownerListing: UInt64?
    /// Per member, the sequence of this document's entry in their shared-with-me listing;
    /// nil while no member has one.
    public var memberListings: [String: UInt64]?
    /// Grants to groups (``GroupKey/rawValue`` → role, never owner); nil while none, so
    /// older rows keep their bytes. A member of the group has the role while they are
    /// a member (``GroupStore``).
    public var groups: [String: Role]?
    /// Pending invitations by normalized email address (``EmailAddress``); nil while
    /// none, so older rows keep their bytes. They grant nothing until redeemed
    /// (``DocumentDirectory/signIn(user:email:)``).
    public var invitations: [String: PendingInvitation]?

    public init(owner: String) {
        self.owner = owner
        self.members = [:]
        self.linkAccess = nil
    }

    /// The user's effective role: owner if owner, else the higher of their grant and the
    /// link floor; nil = no access.
    ///
    /// A grant or floor of ``Role/owner`` for anyone but ``owner`` counts as
    /// ``Role/readWrite``: ``AccessStore`` refuses to store one, and a value built in
    /// memory must not make a second owner either.
    public func role(of user: String) -> Role? {
        role(of: user, inGroups: [])
    }

    /// The effective role counting the grants to the groups `user` belongs to.
    public func role(of user: String, inGroups userGroups: Set<GroupKey>) -> Role? {
        if user == owner { return .owner }
        var best = [members[user], linkAccess].compactMap { $0 }.max()
        if let groups, !userGroups.isEmpty {
            for group in userGroups {
                if let granted = groups[group.rawValue], best.map({ granted > $0 }) ?? true { best = granted }
            }
        }
        return best.map { min($0, .readWrite) }
    }

    /// Sets or (with nil) removes a group's grant, keeping ``groups`` nil rather than empty.
    mutating func setGroup(_ group: GroupKey, _ role: Role?) {
        var all = groups ?? [:]
        all[group.rawValue] = role
        groups = all.isEmpty ? nil : all
    }

    /// Sets or (with nil) removes a member's shared-listing sequence, keeping
    /// ``memberListings`` nil rather than empty.
    mutating func setMemberListing(_ user: String, _ sequence: UInt64?) {
        var listings = memberListings ?? [:]
        listings[user] = sequence
        memberListings = listings.isEmpty ? nil : listings
    }

    /// Checks the rules a stored row keeps: valid user ids, no second owner, a link
    /// floor below owner.
    func validate() throws(AccordError) {
        try UserIDRule.validate(owner)
        for (user, role) in members {
            try UserIDRule.validate(user)
            if role == .owner && user != owner {
                throw AccordError(
                    .invalidArgument, "only the document's owner can have the role owner", details: ["user": user])
            }
        }
        if linkAccess == .owner {
            throw AccordError(.invalidArgument, "link access is reader or read-write, never owner")
        }
        for (group, role) in groups ?? [:] {
            guard GroupKey(rawValue: group) != nil, role != .owner else {
                throw AccordError(.invalidArgument, "a group grant is reader or read-write to a valid group", details: ["group": group])
            }
        }
        for (email, invitation) in invitations ?? [:] {
            guard EmailAddress.problem(email) == nil, invitation.role != .owner else {
                throw AccordError(.invalidArgument, "an invitation is reader or read-write to a valid address", details: ["email": email])
            }
        }
    }
}
