public import AccordCRDT
public import AccordStore

extension RecordIndex {
    /// The records of `model` that match `filter`, in the options' order. Synchronous,
    /// from any thread.
    /// - Throws: `MODEL_NOT_REGISTERED`; `INVALID_QUERY` for a malformed filter or a sort
    ///   key that names no sortable field.
    public func query(
        _ model: String, filter: Filter = .all, options: QueryOptions = QueryOptions()
    ) throws(AccordError) -> [IndexedRecord] {
        try reading { (connection, tables) throws(AccordError) -> [IndexedRecord] in
            var results = try Self.select(model, filter: filter, options: options, connection, tables)
            if !options.include.isEmpty {
                try RelatedRecords(connection: connection, tables: tables, documents: options.documents)
                    .load(options.include, of: model, into: &results)
            }
            return results
        }
    }

    /// The rows of one query, under the lock already held.
    static func select(
        _ model: String, filter: Filter, options: QueryOptions, _ connection: SQLiteConnection,
        _ tables: [String: ModelTables]
    ) throws(AccordError) -> [IndexedRecord] {
        let modelTables = try Self.tables(model, in: tables)
        var condition = try Self.condition(filter, options.documents, modelTables, connection)
        if options.documents?.isEmpty == true { return [] }
        // Rows hold the document's integer key. Scoped to one document, its text is the
        // scope's, bound once, and ids alone order and page its rows (they are unique
        // there); otherwise the key table is joined for the text that results, the
        // tie-break and cursors use.
        let oneDocument = options.documents?.count == 1 ? options.documents?.first : nil
        if let text = options.cursor {
            let cursor = try QueryCursor(text: text, sortOrder: options.sortOrder)
                .condition(options.sortOrder, modelTables, oneDocument: oneDocument != nil)
            condition = SQLPredicate(sql: "\(condition.sql) AND \(cursor.sql)", parameters: condition.parameters + cursor.parameters)
        }
        let order = try Self.orderBy(options.sortOrder, modelTables, oneDocument: oneDocument != nil)
        let fields = modelTables.valueFields
        var sql = oneDocument == nil ? "SELECT d.document, r.id" : "SELECT ?, r.id"
        for field in fields { sql += ", r.\(modelTables.column(field.name))" }
        sql += " FROM \(modelTables.records) r"
        if oneDocument == nil { sql += " JOIN accord_index_document_keys d ON d.key = r.document" }
        sql += " WHERE \(condition.sql) ORDER BY \(order)"
        var parameters = (oneDocument.map { [SQLiteValue.text($0.rawValue)] } ?? []) + condition.parameters
        if let limit = options.limit {
            sql += " LIMIT ?"
            parameters.append(.integer(Int64(max(0, limit))))
        }
        var results: [IndexedRecord] = []
        // Rows of one document follow each other: its id is checked once, not per row.
        var lastDocument: (raw: String, id: DocumentID)?
        try connection.cachedStatement(sql).forEachRow(parameters) { row throws(AccordError) in
            var values: [String: RecordValue] = [:]
            values.reserveCapacity(fields.count)
            for (offset, field) in fields.enumerated() where !row.isNull(Int32(offset + 2)) {
                values[field.name] = Self.value(row, Int32(offset + 2), field.type)
            }
            let raw = row.text(0)
            let document: DocumentID
            if let last = lastDocument, last.raw == raw {
                document = last.id
            } else {
                // Rows are written under valid ids only.
                guard let checked = DocumentID(rawValue: raw) else { return }
                document = checked
                lastDocument = (raw, checked)
            }
            results.append(IndexedRecord(document: document, record: RecordData(id: row.text(1), values: values)))
        }
        return results
    }

    /// One page of at most `options.limit` records (all when nil), and the cursor of
    /// the next page when more match.
    public func queryPaged(
        _ model: String, filter: Filter = .all, options: QueryOptions = QueryOptions()
    ) throws(AccordError) -> QueryPage {
        guard let limit = options.limit else {
            return QueryPage(data: try query(model, filter: filter, options: options), nextCursor: nil)
        }
        var probe = options
        probe.limit = max(0, limit) + 1
        var rows = try query(model, filter: filter, options: probe)
        guard rows.count > limit else { return QueryPage(data: rows, nextCursor: nil) }
        rows.removeLast(rows.count - limit)
        guard let last = rows.last else { return QueryPage(data: [], nextCursor: nil) }
        return QueryPage(data: rows, nextCursor: QueryCursor(after: last, sortOrder: options.sortOrder).text)
    }

    /// How many records of `model` match `filter`.
    public func count(_ model: String, filter: Filter = .all, documents: [DocumentID]? = nil) throws(AccordError) -> Int {
        try reading { (connection, tables) throws(AccordError) -> Int in
            let modelTables = try Self.tables(model, in: tables)
            let condition = try Self.condition(filter, documents, modelTables, connection)
            if documents?.isEmpty == true { return 0 }
            var count = 0
            try connection.cachedStatement("SELECT count(*) FROM \(modelTables.records) r WHERE \(condition.sql)")
                .forEachRow(condition.parameters) { row in count = Int(row.int64(0)) }
            return count
        }
    }

    // MARK: Building SQL

    static func tables(_ model: String, in tables: [String: ModelTables]) throws(AccordError) -> ModelTables {
        guard let modelTables = tables[model] else {
            throw AccordError(.modelNotRegistered, "model \"\(model)\" is not registered", details: ["model": model])
        }
        return modelTables
    }

    /// The filter, scoped to `documents`.
    static func condition(
        _ filter: Filter, _ documents: [DocumentID]?, _ modelTables: ModelTables, _ connection: SQLiteConnection
    ) throws(AccordError) -> SQLPredicate {
        try condition(try filter.compile(for: modelTables.schema), documents, modelTables, connection)
    }

    /// A compiled predicate, scoped to `documents` (nil: every document; `[]`: none).
    ///
    /// The scope is bound as the documents' integer keys, looked up first: compared with
    /// numbers it lets SQLite read one document's rows in id order from the primary key
    /// or a field's index, where a sub-select of the keys made it sort every match.
    static func condition(
        _ predicate: RecordPredicate, _ documents: [DocumentID]?, _ modelTables: ModelTables, _ connection: SQLiteConnection
    ) throws(AccordError) -> SQLPredicate {
        let condition = SQLPredicate(predicate, tables: modelTables)
        guard let documents else { return condition }
        let keys = try documentKeys(documents, connection)
        // No key: the index holds no row of those documents.
        guard !keys.isEmpty else { return .never }
        let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
        return SQLPredicate(sql: "r.document IN (\(marks)) AND \(condition.sql)", parameters: keys.map { .integer($0) } + condition.parameters)
    }

    /// The integer keys of those of `documents` that have one.
    private static func documentKeys(_ documents: [DocumentID], _ connection: SQLiteConnection) throws(AccordError) -> [Int64] {
        guard !documents.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: documents.count).joined(separator: ", ")
        var keys: [Int64] = []
        try connection.cachedStatement("SELECT key FROM accord_index_document_keys WHERE document IN (\(marks))")
            .forEachRow(documents.map { .text($0.rawValue) }) { row in keys.append(row.int64(0)) }
        return keys
    }

    /// SQLite puts NULL first ascending and last descending, which is the rule. Within
    /// `oneDocument` ids are unique, so the document's tie-break is left out: SQLite can
    /// then take the order from an index rather than sort.
    static func orderBy(_ keys: [SortKey], _ modelTables: ModelTables, oneDocument: Bool) throws(AccordError) -> String {
        var terms: [String] = []
        for (index, key) in keys.enumerated() {
            guard let field = modelTables.schema.field(key.field), field.type != .stringSet else {
                throw AccordError(
                    .invalidQuery, "sort[\(index)]: \"\(key.field)\" is not a sortable field of model \"\(modelTables.schema.name)\"",
                    details: ["path": "sort[\(index)]"])
            }
            terms.append("r.\(modelTables.column(key.field)) \(key.direction == .ascending ? "ASC" : "DESC")")
        }
        // `d`: the document's text, joined by ``select`` (the rows hold its integer key).
        return (terms + (oneDocument ? ["r.id ASC"] : ["r.id ASC", "d.document ASC"])).joined(separator: ", ")
    }

    static func value(_ row: SQLiteStatement, _ column: Int32, _ type: FieldType) -> RecordValue {
        switch type {
        case .id, .string, .date: return .string(row.text(column))
        case .number: return .number(row.double(column))
        case .boolean: return .bool(row.int64(column) != 0)
        // Written by MemberList; an unreadable list (the file changed by hand) reads as empty.
        case .stringSet: return .stringSet(MemberList.set(row.text(column)) ?? [])
        }
    }
}
