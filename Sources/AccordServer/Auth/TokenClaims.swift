public import Foundation

/// What a verified bearer token says: who the caller is and when the token is valid.
public struct TokenClaims: Sendable, Hashable {
    /// The user id, the token's `sub` claim: 1 to 256 bytes of UTF-8 without control
    /// characters (the rule access rows use).
    public var subject: String
    /// The token's `exp` claim. The token is refused from this instant on.
    public var expiresAt: Date
    /// The token's `nbf` claim, if any: it is refused before this instant (less the
    /// clock-skew allowance).
    public var notBefore: Date?
    /// The token's `iat` claim, if any: a token issued in the future (beyond the
    /// allowance) is refused.
    public var issuedAt: Date?
    /// The token's `channels` claim, if any: the channels its holder may attach. Without
    /// it, any channel.
    public var channels: ChannelKeyPattern?
    /// The token's `admin` claim (`true`): its holder may manage groups (the admin group
    /// routes), like the users named in ``AccordServer/Configuration/adminUsers``.
    public var isAdmin: Bool
    /// The token's `email` claim, normalized (``EmailAddress``): the first request with
    /// it claims the address for ``subject`` and redeems invitations to it.
    public var email: EmailAddress?

    public init(
        subject: String, expiresAt: Date, notBefore: Date? = nil, issuedAt: Date? = nil,
        channels: ChannelKeyPattern? = nil, isAdmin: Bool = false, email: EmailAddress? = nil
    ) {
        self.email = email
        self.subject = subject
        self.expiresAt = expiresAt
        self.notBefore = notBefore
        self.issuedAt = issuedAt
        self.channels = channels
        self.isAdmin = isAdmin
    }
}
