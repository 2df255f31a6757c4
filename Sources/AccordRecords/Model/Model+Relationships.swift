public import AccordCRDT
import AccordStore

/// Typed reads along a model's relationships, what generated traversals (`post.author()`,
/// `author.posts()`, `post.tags(limit:afterCursor:)`) and include helpers
/// (`post.relatedAuthor`) call with the relationship's name. References point within
/// a document, so a record not saved yet (no document) reaches nothing.
extension Model {
    /// The record of `Target` that this record's `field` holds the id of (a `refersTo`
    /// relationship), looked up in this record's document.
    public func referenced<Target: Model>(_ field: String, as type: Target.Type = Target.self) throws(AccordError) -> Target? {
        guard let target = storage.string(field), let document else { return nil }
        return try Target.find(target, in: [document])
    }

    /// One page of the records `relationship` (a `hasMany` or `hasManyThrough`) reaches,
    /// in the relationship's order; `afterCursor` is a previous page's `nextCursor`.
    public func traverse<Target: Model>(
        _ relationship: String, as type: Target.Type = Target.self, limit: Int? = nil, afterCursor: String? = nil
    ) throws(AccordError) -> ModelPage<Target> {
        guard let id, let document else { return ModelPage(data: [], nextCursor: nil) }
        let page = try Self.boundRecords().records.traverse(
            Self.schema.name, id: id, in: document, relationship: relationship,
            options: QueryOptions(limit: limit, cursor: afterCursor))
        return ModelPage(data: page.data.map { Target(storage: RecordStorage($0)) }, nextCursor: page.nextCursor)
    }

    /// Every record `relationship` reaches, in the relationship's order (one query: a
    /// traversal without a limit is not paged).
    public func traverseAll<Target: Model>(_ relationship: String, as type: Target.Type = Target.self) throws(AccordError) -> [Target] {
        try traverse(relationship, as: type).data
    }

    /// The records of `relationship` that the query which read this record loaded with
    /// ``Include``; empty when it did not include them.
    public func related<Target: Model>(_ relationship: String, as type: Target.Type = Target.self) -> [Target] {
        (storage.related[relationship] ?? []).map { Target(storage: RecordStorage($0)) }
    }
}
