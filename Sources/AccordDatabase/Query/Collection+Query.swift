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
        let compiled = try filter.compile()
        let predicate = try JSONPredicateSQL.compile(compiled)
        var order: [String] = []
        for (index, key) in options.sortOrder.enumerated() {
            let path = try KeyPath(key.field, path: "sortOrder[\(index)]")
            let direction = key.direction == .descending ? "DESC" : "ASC"
            order.append("\(Self.typeRank(path)) \(direction)")
            order.append("CASE WHEN \(Self.typeRank(path)) BETWEEN 1 AND 3 THEN \(path.valueSQL) END \(direction)")
        }
        order.append("d.id")
        var select: [KeyPath]?
        if let paths = options.select {
            var parsed: [KeyPath] = []
            for (index, path) in paths.enumerated() { parsed.append(try KeyPath(path, path: "select[\(index)]")) }
            select = parsed
        }
        guard options.offset >= 0, (options.limit ?? 0) >= 0 else {
            throw AccordError(.invalidQuery, "limit and offset may not be negative")
        }
        let parameters: [SQLiteValue] =
            [.text(key.tableName)] + predicate.parameters
            + [.integer(Int64(options.limit ?? -1)), .integer(Int64(options.offset))]
        return try database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            let sql = """
                SELECT d.id, d.body, d.sequence FROM documents d
                WHERE \(try collectionCondition(compiled, open)) AND d.deleted = 0 AND d.purged = 0 AND \(predicate.sql)
                ORDER BY \(order.joined(separator: ", ")) LIMIT ? OFFSET ?
                """
            var results: [QueryResult] = []
            try open.table.connection.prepare(sql).forEachRow(parameters) { row throws(AccordError) in
                let id = row.text(0)
                let object = try Database.object(row.text(1), key: key, id: id)
                results.append(QueryResult(
                    document: Document(id: id, sequence: UInt64(row.int64(2)), stored: object, blobs: open.blobs),
                    collectionName: name,
                    select: select))
            }
            return results
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

    /// Sorting by type first: null (and absent) 0, booleans 1, numbers 2, strings 3,
    /// arrays and objects 4.
    static func typeRank(_ path: KeyPath) -> String {
        "(CASE IFNULL(\(path.typeSQL), 'null') WHEN 'null' THEN 0 WHEN 'true' THEN 1 WHEN 'false' THEN 1 "
            + "WHEN 'integer' THEN 2 WHEN 'real' THEN 2 WHEN 'text' THEN 3 ELSE 4 END)"
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
