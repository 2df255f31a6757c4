/// A position in a text or array that stays next to the same content while others
/// edit (Yjs `RelativePosition`, Yrs `StickyIndex`): for cursors and selections shared
/// in presence, and for marks an app keeps beside the content.
///
/// It names the unit of content it sticks to (by ID), not an index, so it resolves to
/// the right index on every replica whatever was inserted or deleted before it. A
/// position whose unit was deleted resolves to where the unit was. The binary
/// (``encode()``) and JSON (``json``) forms are Yjs's, so cursors written by Yjs peers
/// (y-protocols awareness "cursor" fields) are read and written unchanged.
///
/// ```swift
/// let cursor = try text.relativePosition(at: 5)
/// // ... edits from anyone ...
/// let index = doc.resolve(cursor)?.index
/// ```
public struct RelativePosition: Hashable, Sendable {
    /// Which neighbour a position sticks to.
    public enum Association: Hashable, Sendable {
        /// To the unit after it (Yjs assoc >= 0, the default): text inserted at the
        /// position goes before it.
        case after
        /// To the unit before it (Yjs assoc < 0): text inserted at the position goes after it.
        case before
    }

    /// The nested type the position is in (the ID of the item holding it); nil for a root.
    public var type: ID?
    /// The root type's name; nil for a nested type.
    public var typeName: String?
    /// The unit the position sticks to; nil for the end (`.after`) or start (`.before`)
    /// of the type.
    public var item: ID?
    /// Yjs's association number: >= 0 after, < 0 before. Kept as written, so that any
    /// value a Yjs peer wrote round-trips.
    public var assoc: Int64

    public var association: Association { assoc >= 0 ? .after : .before }

    public init(type: ID?, typeName: String?, item: ID?, assoc: Int64) {
        self.type = type
        self.typeName = typeName
        self.item = item
        self.assoc = assoc
    }
}

/// A ``RelativePosition`` resolved on one replica.
public struct AbsolutePosition {
    /// The text or array the position is in.
    public let type: YValue
    /// The index (UTF-16 units in a text).
    public let index: Int
    public let association: RelativePosition.Association
}
