import AccordStore

/// A ``RecordPredicate`` as a SQL condition on a model's record table (aliased `r`),
/// with its values as bound parameters (never pasted into the text). Every condition
/// is two-valued (0 or 1, never NULL), so `NOT` means exactly "does not match", as in
/// memory: an atom on a column checks `IS NOT NULL` first.
///
/// Types come from the schema: an operand of another type than the field's can never
/// match, so it compiles to `0`, as the in-memory rule "values of different types are
/// never equal and never ordered" says.
struct SQLPredicate {
    var sql: String
    var parameters: [SQLiteValue]

    static let never = SQLPredicate(sql: "0", parameters: [])
    static let always = SQLPredicate(sql: "1", parameters: [])

    /// The name of the SQL function that folds case exactly as ``CaseFolding`` does.
    static let foldFunction = "accord_fold"

    init(sql: String, parameters: [SQLiteValue]) {
        self.sql = sql
        self.parameters = parameters
    }

    init(_ predicate: RecordPredicate, tables: ModelTables) {
        self = Self.compile(predicate, tables)
    }

    private static func compile(_ predicate: RecordPredicate, _ tables: ModelTables) -> SQLPredicate {
        switch predicate {
        case .all:
            return .always
        case .and(let parts):
            return join(parts.map { compile($0, tables) }, with: "AND")
        case .or(let parts):
            return join(parts.map { compile($0, tables) }, with: "OR")
        case .not(let part):
            let inner = compile(part, tables)
            return SQLPredicate(sql: "NOT (\(inner.sql))", parameters: inner.parameters)
        case .equals(let field, let operand):
            guard let type = tables.schema.field(field)?.type else { return .never }
            let column = "r.\(tables.column(field))"
            if case .null = operand { return SQLPredicate(sql: "\(column) IS NULL", parameters: []) }
            guard let value = parameter(operand, for: type) else { return .never }
            return SQLPredicate(sql: "(\(column) IS NOT NULL AND \(column) = ?)", parameters: [value])
        case .compare(let field, let comparison, let operand):
            guard let type = tables.schema.field(field)?.type, let value = parameter(operand, for: type) else { return .never }
            let column = "r.\(tables.column(field))"
            let op = switch comparison {
            case .greater: ">"
            case .greaterOrEqual: ">="
            case .less: "<"
            case .lessOrEqual: "<="
            }
            return SQLPredicate(sql: "(\(column) IS NOT NULL AND \(column) \(op) ?)", parameters: [value])
        case .isIn(let field, let operands):
            guard let type = tables.schema.field(field)?.type else { return .never }
            let column = "r.\(tables.column(field))"
            let values = operands.compactMap { parameter($0, for: type) }
            var parts: [SQLPredicate] = []
            if !values.isEmpty {
                let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
                parts.append(SQLPredicate(sql: "(\(column) IS NOT NULL AND \(column) IN (\(marks)))", parameters: values))
            }
            if operands.contains(.null) { parts.append(SQLPredicate(sql: "\(column) IS NULL", parameters: [])) }
            return parts.isEmpty ? .never : join(parts, with: "OR")
        // Text operators work on the UTF-8 bytes (CAST AS BLOB): a byte prefix, suffix or
        // substring of UTF-8 is one of code points, and bytes are safe with NUL
        // characters, where SQLite's character functions stop.
        case .startsWith(let field, let prefix):
            return text(field, tables) { column in
                prefix.isEmpty
                    ? SQLPredicate(sql: "\(column) IS NOT NULL", parameters: [])
                    : SQLPredicate(
                        sql: "(\(column) IS NOT NULL AND substr(CAST(\(column) AS BLOB), 1, ?) = ?)",
                        parameters: [.integer(Int64(prefix.utf8.count)), .blob(Array(prefix.utf8))])
            }
        case .endsWith(let field, let suffix):
            return text(field, tables) { column in
                suffix.isEmpty
                    ? SQLPredicate(sql: "\(column) IS NOT NULL", parameters: [])
                    : SQLPredicate(
                        sql: "(\(column) IS NOT NULL AND length(CAST(\(column) AS BLOB)) >= ? AND substr(CAST(\(column) AS BLOB), -?) = ?)",
                        parameters: [
                            .integer(Int64(suffix.utf8.count)), .integer(Int64(suffix.utf8.count)), .blob(Array(suffix.utf8)),
                        ])
            }
        case .containsText(let field, let needle):
            return text(field, tables) { column in
                let folded = CaseFolding.fold(needle)
                return folded.isEmpty
                    ? SQLPredicate(sql: "\(column) IS NOT NULL", parameters: [])
                    : SQLPredicate(
                        sql: "(\(column) IS NOT NULL AND instr(CAST(\(foldFunction)(\(column)) AS BLOB), ?) > 0)",
                        parameters: [.blob(Array(folded.utf8))])
            }
        case .hasMember(let field, let member):
            guard tables.schema.field(field)?.type == .stringSet else { return .never }
            return SQLPredicate(
                sql: "EXISTS (SELECT 1 FROM \(tables.members(field)) m WHERE m.member = ? AND m.document = r.document AND m.id = r.id)",
                parameters: [.text(member)])
        case .exists(let field, let present):
            guard tables.schema.field(field) != nil else { return present ? .never : .always }
            let column = "r.\(tables.column(field))"
            return SQLPredicate(sql: "\(column) IS \(present ? "NOT " : "")NULL", parameters: [])
        }
    }

    /// A text operator: only string-typed fields can match.
    private static func text(
        _ field: String, _ tables: ModelTables, _ build: (String) -> SQLPredicate
    ) -> SQLPredicate {
        guard let type = tables.schema.field(field)?.type, type == .string || type == .id || type == .date else {
            return .never
        }
        return build("r.\(tables.column(field))")
    }

    private static func join(_ parts: [SQLPredicate], with connective: String) -> SQLPredicate {
        guard parts.count > 1 else { return parts.first ?? (connective == "AND" ? .always : .never) }
        return SQLPredicate(
            sql: "(" + parts.map(\.sql).joined(separator: " \(connective) ") + ")",
            parameters: parts.flatMap(\.parameters))
    }

    /// The bound value of `operand` for a column of `type`, or nil when the types
    /// differ (no row can match).
    static func parameter(_ operand: RecordValue, for type: FieldType) -> SQLiteValue? {
        switch (type, operand) {
        case (.id, .string(let text)), (.string, .string(let text)), (.date, .string(let text)): return .text(text)
        case (.number, .number(let number)): return .real(number)
        case (.boolean, .bool(let flag)): return .integer(flag ? 1 : 0)
        default: return nil
        }
    }
}
