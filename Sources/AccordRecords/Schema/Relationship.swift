/// How records of one model point at records of another. Relationships are read-side
/// only: they say how `include` and traversal find related records; nothing is stored
/// for them beyond the fields they name.
public struct Relationship: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// This model's `field` holds the id of one `model` record (a parent).
        case refersTo(field: String)
        /// `model` records whose `foreignField` holds this record's id (children),
        /// ordered by `orderBy` (nil: by id).
        case hasMany(foreignField: String, orderBy: SortKey?)
        /// Records of `model` reached through `joinModel`: a join record's `localField`
        /// holds this record's id and its `relatedField` the related record's id.
        case hasManyThrough(joinModel: String, localField: String, relatedField: String, orderBy: SortKey?)
    }

    public var name: String
    /// The related model.
    public var model: String
    public var kind: Kind

    public init(_ name: String, model: String, _ kind: Kind) {
        self.name = name
        self.model = model
        self.kind = kind
    }
}

/// A field and a direction to sort by.
public struct SortKey: Sendable, Hashable {
    public enum Direction: Int, Sendable, Hashable {
        case ascending = 1
        case descending = -1
    }

    public var field: String
    public var direction: Direction

    public init(_ field: String, _ direction: Direction = .ascending) {
        self.field = field
        self.direction = direction
    }
}
