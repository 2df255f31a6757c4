public import Foundation

/// What a verified bearer token says: who the caller is and until when.
public struct TokenClaims: Sendable, Hashable {
    /// The user id, the token's `sub` claim; never empty.
    public var subject: String
    /// The token's `exp` claim. The token is refused from this instant on.
    public var expiresAt: Date

    public init(subject: String, expiresAt: Date) {
        self.subject = subject
        self.expiresAt = expiresAt
    }
}
