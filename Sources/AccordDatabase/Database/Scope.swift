/// A scope: a namespace of collections. Every database has the scope `_default`.
public struct Scope: Hashable, Sendable {
    public let name: String
}
