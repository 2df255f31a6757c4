/// A name for a document that is stable across a user's devices
/// (``Documents/getOrCreateWithAlias(alias:title:tags:)``).
public struct AliasRef: Sendable, Hashable {
    /// Whose name it is. Only per-user aliases exist so far.
    public enum Scope: String, Sendable, Hashable {
        case user
    }

    public var scope: Scope
    /// 1 to 256 bytes of UTF-8 without control characters, not starting with `$`.
    public var aliasKey: String

    public init(scope: Scope = .user, aliasKey: String) {
        self.scope = scope
        self.aliasKey = aliasKey
    }
}

/// A document reached through an alias, and whether this call created it.
public struct AliasedDocument: Sendable, Hashable {
    public var document: DocumentInfo
    /// True for exactly one of any number of concurrent calls for one alias.
    public var created: Bool
}
