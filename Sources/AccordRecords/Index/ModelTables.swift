/// The SQLite tables that project one model:
///
/// - `r_<model>`: one row per record per document, `document`, `id`, then one column
///   `f_<field>` per field, typed by the field: TEXT for `id`, `string` and `date`, REAL
///   for `number`, INTEGER 0/1 for `boolean`, and for a string set its members as a
///   JSON array of strings in code point order (``MemberList``). Absent and null are
///   both NULL (one value, as filters define it).
/// - `m_<model>_<field>`: the members of a string-set field, one row each, keyed by
///   member first: what `$contains` and membership groups search by. Nothing else
///   indexes it: a record's members are found through its row's JSON (to clear them,
///   to load them), so each member costs one B-tree insert, not two (on the insert
///   benchmark the second tree was about a fifth of the writer's SQLite time).
/// - an index `i_<model>_<field>` for every `indexed` field.
///
/// Model and field names are identifiers (checked by ``ModelSchema/validate()``), so
/// they are safe inside quoted SQL names.
struct ModelTables {
    let schema: ModelSchema
    /// The declared fields other than `id`, in schema order: the columns after `id`.
    let valueFields: [FieldSchema]
    /// Their names, found by their bits (``FieldNames``): where each value of a row
    /// written goes (walking them copies no ``FieldSchema`` per row written).
    let valueFieldNames: FieldNames
    let stringSets: [FieldSchema]
    let records: String
    /// Writes one record's row, replacing the one it had (made once: projection runs
    /// it for every changed record).
    let upsertRow: String
    /// ``upsertRow`` up to `VALUES `, and its one row of parameters: many-row upserts
    /// repeat the row.
    let upsertRowPrefix: String
    let upsertRowMarks: String
    /// ``upsertRowPrefix`` that leaves existing rows alone instead of replacing them.
    let insertRowPrefix: String
    /// For each string set: its field, its members table and its column in ``records``.
    let memberWrites: [(field: String, table: String, column: String)]
    /// The statements for a full chunk of ``RecordIndex/rowsPerStatement`` rows, made
    /// once (building them per chunk showed in profiles of bulk inserts).
    let fullChunk: FullChunkStatements

    struct FullChunkStatements {
        let upsertRows: String
        let insertNewRows: String
        /// Reading the member lists of a chunk's rows; by members table, adding a chunk of members.
        let listedMembers: String
        let addMembers: [String: String]
    }

    init(schema: ModelSchema) {
        self.schema = schema
        valueFields = schema.fields.filter { $0.name != ModelSchema.idField }
        valueFieldNames = FieldNames(valueFields)
        stringSets = valueFields.filter { $0.type == .stringSet }
        records = "\"r_\(schema.name)\""
        let columns = ["document", "id"] + valueFields.map { Self.column($0.name) }
        upsertRowPrefix = "INSERT OR REPLACE INTO \(records) (\(columns.joined(separator: ", "))) VALUES "
        insertRowPrefix = "INSERT OR IGNORE INTO \(records) (\(columns.joined(separator: ", "))) VALUES "
        upsertRowMarks = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        upsertRow = upsertRowPrefix + upsertRowMarks
        memberWrites = stringSets.map { ($0.name, Self.members(schema.name, $0.name), Self.column($0.name)) }
        let rows = RecordIndex.rowsPerStatement
        let allMarks = Array(repeating: upsertRowMarks, count: rows).joined(separator: ", ")
        fullChunk = FullChunkStatements(
            upsertRows: upsertRowPrefix + allMarks,
            insertNewRows: insertRowPrefix + allMarks,
            listedMembers: Self.listedMembers(of: rows, in: records, columns: memberWrites.map(\.column)),
            addMembers: Dictionary(uniqueKeysWithValues: memberWrites.map { ($0.table, Self.addMembers(rows, to: $0.table)) }))
    }

    func members(_ field: String) -> String { Self.members(schema.name, field) }

    /// The column of a field; the record id is `id`.
    func column(_ field: String) -> String { Self.column(field) }

    private static func members(_ model: String, _ field: String) -> String { "\"m_\(model)_\(field)\"" }

    private static func column(_ field: String) -> String {
        field == ModelSchema.idField ? "id" : "\"f_\(field)\""
    }

    /// Statements that create every table and index of the model.
    var creation: [String] {
        var columns = ["document INTEGER NOT NULL", "id TEXT NOT NULL"]
        for field in valueFields {
            columns.append("\(column(field.name)) \(Self.affinity(field.type))")
        }
        columns.append("PRIMARY KEY (document, id)")
        var statements = ["CREATE TABLE \(records) (\(columns.joined(separator: ", "))) WITHOUT ROWID"]
        for field in stringSets {
            statements.append(
                "CREATE TABLE \(members(field.name)) (member TEXT NOT NULL, document INTEGER NOT NULL, id TEXT NOT NULL, "
                    + "PRIMARY KEY (member, document, id)) WITHOUT ROWID")
        }
        for field in valueFields where field.indexed && field.type != .stringSet {
            statements.append("CREATE INDEX \"i_\(schema.name)_\(field.name)\" ON \(records) (\(column(field.name)))")
        }
        return statements
    }

    /// Statements that drop everything ``creation`` made.
    var removal: [String] {
        ["DROP TABLE IF EXISTS \(records)"] + stringSets.map { "DROP TABLE IF EXISTS \(members($0.name))" }
    }

    static func affinity(_ type: FieldType) -> String {
        switch type {
        case .id, .string, .date, .stringSet: "TEXT"
        case .number: "REAL"
        case .boolean: "INTEGER"
        }
    }
}
