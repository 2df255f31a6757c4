public import AccordCRDT
public import AccordRecords
import AccordStore

extension Collection {
    /// An aggregation over the collection's documents with the records
    /// ``AggregateOptions`` (`groupBy`, `count`, `sum`, `avg`, `min`, `max`, `filter`,
    /// `sort`, `limit`), where every field name is a key path (`"address.city"`, `_id`,
    /// `_expiration`). An array at a grouped path is a facet (each string member its own
    /// group); see `docs/database.md`, Aggregations. Like ``query(_:_:)`` it reads what
    /// is committed. `options.json(row)` gives a row as JSON.
    ///
    /// - Throws: `INVALID_QUERY` naming the path of a malformed filter, key path, or
    ///   option (a group or result twice, no operations, a sort key that is neither,
    ///   a negative limit, `documents` given).
    public func aggregate(_ options: AggregateOptions) throws(AccordError) -> [AggregateRow] {
        let plan = try DocumentAggregatePlan(options)
        let columns = plan.paths.map { "\($0.typeSQL), \($0.valueSQL)" }
        return try database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            let sql = """
                SELECT \((["1"] + columns).joined(separator: ", ")) FROM documents d
                WHERE d.collection = ? AND d.deleted = 0 AND d.purged = 0 AND \(plan.predicate.sql)
                """
            var documents: [[DocumentAggregatePlan.PathValue]] = []
            try open.table.connection.prepare(sql).forEachRow([.text(key.tableName)] + plan.predicate.parameters) { row in
                documents.append(plan.paths.indices.map { index in
                    let column = Int32(1 + 2 * index)
                    return DocumentAggregatePlan.pathValue(
                        type: row.isNull(column) ? nil : row.text(column), value: row.value(column + 1))
                })
            }
            return plan.rows(documents)
        }
    }
}
