public import AccordCRDT
public import AccordStore

extension RecordIndex {
    /// The records that record `id` of `model` (in `document`) reaches through its
    /// `hasMany` or `hasManyThrough` relationship `relationship`, a page at a time in
    /// the relationship's order: `options.limit` and `options.cursor` page; the cursor
    /// of a `hasManyThrough` walks the join records, so inserts between pages never
    /// repeat or skip one.
    /// - Throws: `INVALID_QUERY` for an unknown relationship or a `refersTo`.
    public func traverse(
        _ model: String, id: String, in document: DocumentID, relationship name: String, options: QueryOptions = QueryOptions()
    ) throws(AccordError) -> QueryPage {
        guard let schema = models[model] else {
            throw AccordError(.modelNotRegistered, "model \"\(model)\" is not registered", details: ["model": model])
        }
        guard let relationship = schema.relationships.first(where: { $0.name == name }) else {
            throw AccordError(
                .invalidQuery, "relationship: model \"\(model)\" has no relationship \"\(name)\"", details: ["path": "relationship"])
        }
        var scoped = options
        scoped.documents = [document]
        switch relationship.kind {
        case .refersTo:
            throw AccordError(
                .invalidQuery, "relationship: \"\(name)\" refers to one record; include it in a query instead",
                details: ["path": "relationship"])
        case .hasMany(let foreignField, let order):
            scoped.sortOrder = order.map { [$0] } ?? []
            return try queryPaged(relationship.model, filter: Filter(json: .object([foreignField: .string(id)])), options: scoped)
        case .hasManyThrough(let joinModel, let localField, let relatedField, let order):
            scoped.sortOrder = order.map { [$0] } ?? []
            let joins = try queryPaged(joinModel, filter: Filter(json: .object([localField: .string(id)])), options: scoped)
            let targetIDs = joins.data.compactMap { join -> String? in
                if case .string(let target)? = join.record[relatedField] { return target }
                return nil
            }
            let targets = try query(
                relationship.model, filter: Filter(json: .object(["id": .object(["$in": .array(targetIDs.map { .string($0) })])])),
                options: QueryOptions(documents: [document]))
            // In the join records' order; a join whose target is gone is skipped.
            let byID = Dictionary(targets.map { (Array($0.id.utf8), $0) }, uniquingKeysWith: { first, _ in first })
            return QueryPage(data: targetIDs.compactMap { byID[Array($0.utf8)] }, nextCursor: joins.nextCursor)
        }
    }
}
