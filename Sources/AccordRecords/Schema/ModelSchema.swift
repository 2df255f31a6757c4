/// A model: the name of its root map in a document, its fields, unique constraints and
/// relationships. Every model has the implicit field `id` (type `id`, the key of the
/// record in the model's root map); declaring it is optional and only adds options
/// such as `autoAssign`.
///
/// ```swift
/// let tasks = ModelSchema("tasks", fields: [
///     FieldSchema("title", .string),
///     FieldSchema("priority", .number, indexed: true, defaultValue: 0),
///     FieldSchema("tags", .stringSet, maxCount: 16),
/// ])
/// try tasks.validate()
/// ```
public struct ModelSchema: Sendable, Hashable {
    public var name: String
    public var fields: [FieldSchema]
    public var uniqueConstraints: [UniqueConstraint]
    public var relationships: [Relationship]

    public init(
        _ name: String, fields: [FieldSchema], uniqueConstraints: [UniqueConstraint] = [],
        relationships: [Relationship] = []
    ) {
        self.name = name
        self.fields = fields
        self.uniqueConstraints = uniqueConstraints
        self.relationships = relationships
    }

    /// The name of the implicit id field.
    public static let idField = "id"

    /// The field named `name`, including the implicit `id`.
    public func field(_ name: String) -> FieldSchema? {
        if let declared = fields.first(where: { $0.name == name }) { return declared }
        return name == Self.idField ? FieldSchema(Self.idField, .id) : nil
    }

    /// Every field, the implicit `id` first when it is not declared.
    public var allFields: [FieldSchema] {
        fields.contains { $0.name == Self.idField } ? fields : [FieldSchema(Self.idField, .id)] + fields
    }
}
