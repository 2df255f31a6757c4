/// A step in the path from an observed type down to the type that changed.
public enum PathSegment: Hashable, Sendable {
    case key(String)
    case index(Int)
}

/// How one map key changed in a transaction.
public struct KeyChange {
    public enum Action: String, Sendable { case add, update, delete }
    public var action: Action
    /// The value before the transaction (nil for `add`).
    public var oldValue: YValue?
}

/// What changed in one shared type during one transaction.
public struct YEvent {
    /// The type that changed.
    public let target: YValue
    /// From the observed type (for `observeDeep`) to ``target``; empty for `observe`.
    public internal(set) var path: [PathSegment]
    /// Map keys that changed (maps, XML attributes).
    public let keys: [String: KeyChange]
    /// The change to the list part: an array delta, or a text delta with attributes.
    public let delta: [DeltaOp]
    /// The transaction's origin.
    public let origin: Origin?
    /// True when the change was made through this document's API, false when it came
    /// from `applyUpdate`.
    public let isLocal: Bool
}
