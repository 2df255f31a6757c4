import AccordCRDT
import AccordStore

/// Loads the records a query's `include` names, one query per relationship for all
/// results together (never one per result), under the index's lock. Related records
/// are looked up in the same documents as the query, and a result's related records
/// come from its own document: references point within a document.
struct RelatedRecords {
    let connection: SQLiteConnection
    let tables: [String: ModelTables]
    let documents: [DocumentID]?

    func load(_ includes: [Include], of model: String, into results: inout [IndexedRecord]) throws(AccordError) {
        let schema = try RecordIndex.tables(model, in: tables).schema
        for (index, include) in includes.enumerated() {
            guard let relationship = schema.relationships.first(where: { $0.name == include.relationship }) else {
                throw AccordError(
                    .invalidQuery, "include[\(index)]: model \"\(model)\" has no relationship \"\(include.relationship)\"",
                    details: ["path": "include[\(index)]"])
            }
            switch relationship.kind {
            case .refersTo(let field):
                let keys = results.compactMap { $0.record[field].flatMap(Self.text) }
                let parents = Self.group(try fetch(relationship.model, field: ModelSchema.idField, in: keys, order: nil)) { $0.id }
                attach(relationship.name, to: &results, limit: 1) { result in
                    result.record[field].flatMap(Self.text).flatMap { parents[Self.key(result.document, $0)] } ?? []
                }
            case .hasMany(let foreignField, let order):
                let children = Self.group(try fetch(relationship.model, field: foreignField, in: results.map(\.id), order: order)) {
                    $0.record[foreignField].flatMap(Self.text)
                }
                attach(relationship.name, to: &results, limit: include.limit) { children[Self.key($0.document, $0.id)] ?? [] }
            case .hasManyThrough(let joinModel, let localField, let relatedField, let order):
                let joins = try fetch(joinModel, field: localField, in: results.map(\.id), order: order)
                let targets = Self.group(try fetch(
                    relationship.model, field: ModelSchema.idField,
                    in: joins.compactMap { $0.record[relatedField].flatMap(Self.text) }, order: nil)) { $0.id }
                let joinsByParent = Self.group(joins) { $0.record[localField].flatMap(Self.text) }
                attach(relationship.name, to: &results, limit: include.limit) { result in
                    (joinsByParent[Self.key(result.document, result.id)] ?? []).compactMap { join in
                        join.record[relatedField].flatMap(Self.text).flatMap { targets[Self.key(join.document, $0)]?.first }
                    }
                }
            }
        }
    }

    /// Records by document and key, keeping their order.
    private static func group(_ records: [IndexedRecord], by key: (IndexedRecord) -> String?) -> [[UInt8]: [IndexedRecord]] {
        var groups: [[UInt8]: [IndexedRecord]] = [:]
        for record in records {
            guard let value = key(record) else { continue }
            groups[Self.key(record.document, value), default: []].append(record)
        }
        return groups
    }

    /// One dictionary key for a document and a value, as bytes: ids compare by code
    /// points, not by Swift's canonical equivalence. NUL cannot occur in a document id.
    private static func key(_ document: DocumentID, _ value: String) -> [UInt8] {
        Array(document.rawValue.utf8) + [0] + Array(value.utf8)
    }

    /// Records of `model` whose `field` is one of `keys`, in `order` (then id).
    private func fetch(_ model: String, field: String, in keys: [String], order: SortKey?) throws(AccordError) -> [IndexedRecord] {
        let unique = Array(Set(keys)).sorted(by: CodePoints.less)
        guard !unique.isEmpty else { return [] }
        let filter = Filter(json: .object(OrderedObject([(field, .object(OrderedObject([("$in", .array(unique.map { .string($0) }))])))])))
        let options = QueryOptions(documents: documents, sortOrder: order.map { [$0] } ?? [])
        return try RecordIndex.select(model, filter: filter, options: options, connection, tables)
    }

    private func attach(
        _ name: String, to results: inout [IndexedRecord], limit: Int?, _ related: (IndexedRecord) -> [IndexedRecord]
    ) {
        for index in results.indices {
            let found = related(results[index])
            results[index].related[name] = limit.map { Array(found.prefix($0)) } ?? found
        }
    }

    private static func text(_ value: RecordValue) -> String? {
        if case .string(let text) = value { return text }
        return nil
    }
}
