import AccordCRDT
import AccordStore

extension RecordIndex {
    /// Rows written by one statement: a multi-row statement pays SQLite's per-statement
    /// cost (bind, step, reset) once for many rows, which is most of the cost of a
    /// one-row insert. 32 rows of the widest table stay far below SQLite's limit on
    /// bound parameters.
    static let rowsPerStatement = 32

    /// Writes the rows of `records` (replacing earlier ones) and their string-set
    /// members (cleared, then written again), under the lock, many rows per statement.
    ///
    /// `created`: the records are new to their document, so most likely the index holds
    /// no row for them, and then no members either (members never outlive their row).
    /// Each chunk is then inserted with `INSERT OR IGNORE` and, when every row went in,
    /// its members are added without the clearing delete, which costs a search of the
    /// members table per record. When a row was already there (the hint was wrong, say
    /// a record deleted and created again between two projections), the chunk is
    /// written the ordinary way over it.
    /// Returns whether every row went in as new (only with `created`; false otherwise).
    @discardableResult
    func insertMany(
        _ records: [RecordData], into modelTables: ModelTables, document: DocumentID, created: Bool = false
    ) throws(AccordError) -> Bool {
        guard !records.isEmpty, let documentKey = try documentKey(document, creating: true) else { return created }
        let columns = modelTables.valueFieldNames.names.count + 2
        var rows = SQLiteParameters(reserving: Self.rowsPerStatement * columns, textBytes: Self.rowsPerStatement * 256)
        // Members of every chunk go out in full statements of `rowsPerStatement` members,
        // whichever records they belong to; only the last statement of the call is
        // shorter (a short statement per chunk was SQL text made and looked up per chunk).
        var members = modelTables.memberWrites.map { _ in
            SQLiteParameters(reserving: Self.rowsPerStatement * 3, textBytes: Self.rowsPerStatement * 32)
        }
        var allFresh = created
        var start = 0
        while start < records.count {
            let chunk = records[start..<min(start + Self.rowsPerStatement, records.count)]
            start += chunk.count
            rows.removeAll()
            for record in chunk {
                rows.append(documentKey)
                rows.append(record.id)
                Self.appendColumns(of: record, names: modelTables.valueFieldNames, to: &rows)
            }
            var fresh = false
            if created {
                try connection.cachedStatement(modelTables.insertNewRows(chunk.count)).run(rows)
                fresh = connection.changes == chunk.count
            }
            // A chunk not all new first clears the members its rows list now (before
            // the rows change: the row's JSON is how its members are found). Members
            // of earlier chunks still waiting belong to other records.
            if !fresh {
                try clearMembers(of: chunk.map(\.id), in: modelTables, document: documentKey)
                allFresh = false
                try connection.cachedStatement(modelTables.upsertRows(chunk.count)).run(rows)
            }
            for (position, write) in modelTables.memberWrites.enumerated() {
                for record in chunk {
                    guard case .stringSet(let set)? = record.values[write.field] else { continue }
                    for member in set {
                        members[position].append(member)
                        members[position].append(documentKey)
                        members[position].append(record.id)
                        if members[position].count == Self.rowsPerStatement * 3 {
                            try connection.cachedStatement(modelTables.addMembers(Self.rowsPerStatement, to: write.table))
                                .run(members[position])
                            members[position].removeAll()
                        }
                    }
                }
            }
        }
        for (position, write) in modelTables.memberWrites.enumerated() where !members[position].isEmpty {
            try connection.cachedStatement(modelTables.addMembers(members[position].count / 3, to: write.table)).run(members[position])
        }
        return allFresh
    }
}

extension RecordIndex {
    /// Appends the columns of `record`'s values in the order of `names` (NULL for a
    /// field it lacks). Each value is placed by its name's bits (``FieldNames``): a
    /// record's keys are mostly the very strings of the schema, or short ones whose bits
    /// are their text. One hashed look-up per field instead was about a twentieth of the
    /// index writer's time; walking the names as `String`s retained each one compared.
    static func appendColumns(of record: RecordData, names: FieldNames, to row: inout SQLiteParameters) {
        let start = row.count
        row.appendNulls(names.names.count)
        for (field, value) in record.values {
            let position = names.position(of: field)
            // A field outside the schema has no column (saves and projections check records first).
            guard let position else { continue }
            let index = start + position
            switch value {
            case .null: break
            case .bool(let flag): row.set(Int64(flag ? 1 : 0), at: index)
            case .number(let number): row.set(number, at: index)
            case .string(let text): row.set(text, at: index)
            case .stringSet(let set): row.setText(at: index) { MemberList.write(set, to: &$0) }
            }
        }
    }
}

extension ModelTables {
    /// ``upsertRow`` for `rows` rows at once.
    func upsertRows(_ rows: Int) -> String {
        if rows == RecordIndex.rowsPerStatement { return fullChunk.upsertRows }
        return rows == 1 ? upsertRow : upsertRowPrefix + Array(repeating: upsertRowMarks, count: rows).joined(separator: ", ")
    }

    /// Inserts `rows` rows at once, leaving out (not replacing) any whose key the table
    /// already holds: the connection's `changes` then counts fewer than `rows`.
    func insertNewRows(_ rows: Int) -> String {
        if rows == RecordIndex.rowsPerStatement { return fullChunk.insertNewRows }
        return insertRowPrefix + Array(repeating: upsertRowMarks, count: rows).joined(separator: ", ")
    }

    /// Reads the member lists of `rows` records of one document (`?` the document, then
    /// `rows` ids): made once for a full chunk.
    func listedMembers(of rows: Int) -> String {
        if rows == RecordIndex.rowsPerStatement { return fullChunk.listedMembers }
        return Self.listedMembers(of: rows, in: records, columns: memberWrites.map(\.column))
    }

    /// ``addMembers(_:to:)``, made once for a full chunk.
    func addMembers(_ rows: Int, to table: String) -> String {
        if rows == RecordIndex.rowsPerStatement, let made = fullChunk.addMembers[table] { return made }
        return Self.addMembers(rows, to: table)
    }

    /// Selects the id and the member lists (one column per string set, in
    /// ``memberWrites`` order) of `rows` records of one document.
    static func listedMembers(of rows: Int, in records: String, columns: [String]) -> String {
        let ids = Array(repeating: "?", count: rows).joined(separator: ", ")
        return "SELECT id, \(columns.joined(separator: ", ")) FROM \(records) WHERE document = ? AND id IN (\(ids))"
    }

    /// Adds `rows` members (member, document, id) to a members table. `OR IGNORE`
    /// although no member is ever there already (a record's members are cleared, or
    /// known absent, first): a many-row statement that may abort on a constraint makes
    /// SQLite keep a statement journal, a copy of every page it changes; one that cannot
    /// abort needs none.
    static func addMembers(_ rows: Int, to table: String) -> String {
        "INSERT OR IGNORE INTO \(table) VALUES " + Array(repeating: "(?, ?, ?)", count: rows).joined(separator: ", ")
    }
}
