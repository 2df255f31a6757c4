public import AccordCRDT
public import AccordRecords
import AccordStore

extension Collection {
    /// The documents matching `filter`, with the records query semantics over key paths
    /// (`"address.city"`; `_id` is the id, `_expiration` the expiration in seconds since
    /// 1970): operators, absent-field rules, sorting. See
    /// `docs/database.md`. Answers from the document table, using the indexes made with
    /// ``createIndex(name:keyPaths:)``; inside ``Database/inBatch(_:)`` it sees what was
    /// committed before the batch, not the batch's own writes.
    ///
    /// - Throws: `INVALID_QUERY` naming the path of a malformed filter, sort key or selection.
    public func query(_ filter: Filter = .all, _ options: DocumentQueryOptions = DocumentQueryOptions()) throws(AccordError)
        -> [QueryResult]
    {
        try run(DocumentQueryPlan(filter, options), options, limit: options.limit).results
    }

    /// One page of at most `limit` results (all when nil) and the cursor of the next one:
    /// pass it as `options.cursor` with the same filter and sort keys to continue. Paging
    /// visits every matching document exactly once, for ascending and descending sorts,
    /// also while documents are saved between pages. `INVALID_QUERY` for a cursor of
    /// another query.
    public func queryPaged(_ filter: Filter = .all, _ options: DocumentQueryOptions = DocumentQueryOptions())
        throws(AccordError) -> DocumentQueryPage
    {
        let plan = try DocumentQueryPlan(filter, options)
        let (results, terms) = try run(plan, options, limit: options.limit.map { $0 + 1 })
        guard let limit = options.limit, results.count > limit else {
            return DocumentQueryPage(results: results, nextCursor: nil)
        }
        return DocumentQueryPage(results: Array(results.prefix(limit)), nextCursor: plan.cursor(terms[limit - 1]))
    }

    /// Runs a plan; returns the results and each row's sort-term values (for cursors).
    private func run(_ plan: DocumentQueryPlan, _ options: DocumentQueryOptions, limit: Int?) throws(AccordError)
        -> (results: [QueryResult], terms: [[SQLiteValue]])
    {
        var after = JSONPredicateSQL.always
        if let cursor = options.cursor { after = try plan.after(cursor) }
        return try database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            let sql = """
                SELECT d.id, d.body, d.sequence, \(plan.sortColumns) FROM documents d
                WHERE \(try collectionCondition(plan.compiled, open)) AND d.deleted = 0 AND d.purged = 0
                    AND \(plan.predicate.sql) AND \(after.sql)
                ORDER BY \(plan.orderBy) LIMIT ? OFFSET ?
                """
            let parameters: [SQLiteValue] =
                [.text(key.tableName)] + plan.predicate.parameters + after.parameters
                + [.integer(Int64(limit ?? -1)), .integer(Int64(options.offset))]
            var results: [QueryResult] = []
            var terms: [[SQLiteValue]] = []
            let columns = Int32(plan.sortTerms.count)
            try open.table.connection.prepare(sql).forEachRow(parameters) { row throws(AccordError) in
                let id = row.text(0)
                let object = try Database.object(row.text(1), key: key, id: id)
                results.append(QueryResult(
                    document: Document(id: id, sequence: UInt64(row.int64(2)), stored: object, blobs: open.blobs),
                    collectionName: name, select: plan.select))
                terms.append((0..<columns).map { row.value(3 + $0) })
            }
            return (results, terms)
        }
    }

    /// How many documents match `filter` (see ``query(_:_:)``).
    public func count(_ filter: Filter) throws(AccordError) -> Int {
        let compiled = try filter.compile()
        let predicate = try JSONPredicateSQL.compile(compiled)
        return try database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            let sql = """
                SELECT COUNT(*) FROM documents d
                WHERE \(try collectionCondition(compiled, open)) AND d.deleted = 0 AND d.purged = 0 AND \(predicate.sql)
                """
            var count = 0
            try open.table.connection.prepare(sql).forEachRow([.text(key.tableName)] + predicate.parameters) {
                count = Int($0.int64(0))
            }
            return count
        }
    }

    /// The SQLite query plan of a query (`EXPLAIN QUERY PLAN`), for tests that check an
    /// index is used.
    func queryPlan(_ filter: Filter) throws(AccordError) -> String {
        let compiled = try filter.compile()
        let predicate = try JSONPredicateSQL.compile(compiled)
        return try database.withOpen { open throws(AccordError) in
            let sql = """
                EXPLAIN QUERY PLAN SELECT d.id, d.body, d.sequence FROM documents d
                WHERE \(try collectionCondition(compiled, open)) AND d.deleted = 0 AND d.purged = 0 AND \(predicate.sql)
                ORDER BY d.id
                """
            var plan: [String] = []
            try open.table.connection.prepare(sql).forEachRow([.text(key.tableName)] + predicate.parameters) {
                plan.append($0.text(3))
            }
            return plan.joined(separator: "\n")
        }
    }

    /// The condition on the collection column. Written `+d.collection` (not usable by an
    /// index) when the filter names the first key path of one of the collection's
    /// indexes: without statistics SQLite would otherwise prefer the primary key's
    /// (collection, id) range, which spares it a sort, over the expression index.
    private func collectionCondition(_ predicate: RecordPredicate, _ open: Database.OpenState) throws(AccordError) -> String {
        let named = Self.fields(predicate)
        let leading = try open.table.indexes(collection: key.tableName).compactMap(\.keyPaths.first)
        return leading.contains(where: named.contains) ? "+d.collection = ?" : "d.collection = ?"
    }

    private static func fields(_ predicate: RecordPredicate) -> Set<String> {
        switch predicate {
        case .all: return []
        case .and(let parts), .or(let parts): return parts.reduce(into: []) { $0.formUnion(fields($1)) }
        case .not(let part): return fields(part)
        case .equals(let field, _), .compare(let field, _, _), .isIn(let field, _), .startsWith(let field, _),
            .endsWith(let field, _), .containsText(let field, _), .hasMember(let field, _), .exists(let field, _):
            return [field]
        }
    }

    // MARK: Indexes

    /// Creates an index over the values at `keyPaths` (SQLite expression indexes on the
    /// document table), used by queries that filter or sort on them. Creating an index
    /// that exists with the same key paths does nothing; with other key paths it is
    /// `INVALID_ARGUMENT`.
    public func createIndex(name indexName: String, keyPaths: [String]) throws(AccordError) {
        try Self.validateIndexName(indexName)
        guard !keyPaths.isEmpty else { throw AccordError(.invalidArgument, "an index needs at least one key path") }
        var paths: [KeyPath] = []
        for (index, path) in keyPaths.enumerated() {
            let keyPath = try KeyPath(path, path: "keyPaths[\(index)]")
            guard !keyPath.isDocumentID, !keyPath.isExpiration else {
                throw AccordError(.invalidArgument, "\(path) is indexed already; an index is over document properties")
            }
            paths.append(keyPath)
        }
        try database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            if let existing = try open.table.indexes(collection: key.tableName).first(where: { $0.name == indexName }) {
                guard existing.keyPaths == keyPaths else {
                    throw AccordError(
                        .invalidArgument, "the index \(indexName) exists over other key paths: \(existing.keyPaths)",
                        details: ["index": indexName])
                }
                return
            }
            try open.table.transaction { () throws(AccordError) in
                try open.table.createIndex(collection: key.tableName, name: indexName, keyPaths: paths)
            }
        }
    }

    /// Deletes an index (nothing when there is none by that name).
    public func deleteIndex(name indexName: String) throws(AccordError) {
        try database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            try open.table.transaction { () throws(AccordError) in
                try open.table.dropIndex(collection: key.tableName, name: indexName)
            }
        }
    }

    /// The names of the collection's indexes, sorted.
    public func indexes() throws(AccordError) -> [String] {
        try database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            return try open.table.indexes(collection: key.tableName).map(\.name)
        }
    }

    static func validateIndexName(_ name: String) throws(AccordError) {
        guard (1...251).contains(name.utf8.count),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw AccordError(.invalidArgument, "an index name has 1 to 251 bytes and no control characters")
        }
    }
}
