/// One field of a model.
public struct FieldSchema: Sendable, Hashable {
    public var name: String
    public var type: FieldType
    /// The index keeps a SQLite index on this field, for fast filters and sorts on it.
    public var indexed: Bool
    /// Written when a new record is saved without a value for the field.
    public var defaultValue: RecordValue?
    /// No two records of the model on a replica may share a value of this field.
    public var unique: Bool
    /// A new record saved without a value gets a fresh ULID (`id` and `string` fields).
    public var autoAssign: Bool
    /// For string sets: the most members the set may hold when saved.
    public var maxCount: Int?

    public init(
        _ name: String, _ type: FieldType, indexed: Bool = false, defaultValue: RecordValue? = nil,
        unique: Bool = false, autoAssign: Bool = false, maxCount: Int? = nil
    ) {
        self.name = name
        self.type = type
        self.indexed = indexed
        self.defaultValue = defaultValue
        self.unique = unique
        self.autoAssign = autoAssign
        self.maxCount = maxCount
    }
}
