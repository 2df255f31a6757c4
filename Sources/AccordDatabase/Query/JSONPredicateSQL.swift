import AccordCRDT
import AccordRecords
import AccordStore

/// A filter's ``RecordPredicate`` as a SQL condition on the document table (aliased
/// `d`), over `json_extract` of key paths, with the same semantics the records query
/// engine has (see `docs/records.md`, Filters), where a JSON value's type is its field
/// type: `json_type` tells numbers from booleans (both integers to SQL) and strings from
/// arrays and objects (both text). An array is, for `$contains`, the set of its string
/// members; an object is present, not null, and equal to nothing.
///
/// Every condition is two-valued (0 or 1, never NULL), so `NOT` means "does not match".
/// Operands are bound parameters; key paths are inlined literals, so a condition on
/// `json_extract(d.body, '$."a"')` uses an index built on the same expression.
struct JSONPredicateSQL {
    var sql: String
    var parameters: [SQLiteValue]

    static let never = JSONPredicateSQL(sql: "0", parameters: [])
    static let always = JSONPredicateSQL(sql: "1", parameters: [])

    init(sql: String, parameters: [SQLiteValue]) {
        self.sql = sql
        self.parameters = parameters
    }

    static func compile(_ predicate: RecordPredicate) throws(AccordError) -> JSONPredicateSQL {
        switch predicate {
        case .all:
            return .always
        case .and(let parts):
            return try join(parts, with: "AND")
        case .or(let parts):
            return try join(parts, with: "OR")
        case .not(let part):
            let inner = try compile(part)
            return JSONPredicateSQL(sql: "NOT (\(inner.sql))", parameters: inner.parameters)
        case .equals(let field, let operand):
            let path = try KeyPath(field, path: "filter.\(field)")
            if case .null = operand { return isNull(path) }
            guard let (types, value) = typed(operand) else { return .never }
            return JSONPredicateSQL(sql: "(\(types(path)) AND \(path.valueSQL) = ?)", parameters: [value])
        case .compare(let field, let comparison, let operand):
            let path = try KeyPath(field, path: "filter.\(field)")
            guard let (types, value) = typed(operand) else { return .never }
            let op = switch comparison {
            case .greater: ">"
            case .greaterOrEqual: ">="
            case .less: "<"
            case .lessOrEqual: "<="
            }
            return JSONPredicateSQL(sql: "(\(types(path)) AND \(path.valueSQL) \(op) ?)", parameters: [value])
        case .isIn(let field, let operands):
            let path = try KeyPath(field, path: "filter.\(field)")
            var parts: [JSONPredicateSQL] = []
            var groups: [String: (types: (KeyPath) -> String, values: [SQLiteValue])] = [:]
            for operand in operands {
                guard let (types, value) = typed(operand) else { continue }
                groups[types(path), default: (types, [])].values.append(value)
            }
            for key in groups.keys.sorted() {
                let group = groups[key]!
                let marks = Array(repeating: "?", count: group.values.count).joined(separator: ", ")
                parts.append(JSONPredicateSQL(
                    sql: "(\(group.types(path)) AND \(path.valueSQL) IN (\(marks)))", parameters: group.values))
            }
            if operands.contains(.null) { parts.append(isNull(path)) }
            return parts.isEmpty ? .never : joined(parts, with: "OR")
        case .startsWith(let field, let prefix):
            let path = try KeyPath(field, path: "filter.\(field)")
            let bytes = "CAST(\(path.valueSQL) AS BLOB)"
            return prefix.isEmpty
                ? isText(path)
                : JSONPredicateSQL(
                    sql: "(\(isText(path).sql) AND substr(\(bytes), 1, ?) = ?)",
                    parameters: [.integer(Int64(prefix.utf8.count)), .blob(Array(prefix.utf8))])
        case .endsWith(let field, let suffix):
            let path = try KeyPath(field, path: "filter.\(field)")
            let bytes = "CAST(\(path.valueSQL) AS BLOB)"
            let count = Int64(suffix.utf8.count)
            return suffix.isEmpty
                ? isText(path)
                : JSONPredicateSQL(
                    sql: "(\(isText(path).sql) AND length(\(bytes)) >= ? AND substr(\(bytes), -?) = ?)",
                    parameters: [.integer(count), .integer(count), .blob(Array(suffix.utf8))])
        case .containsText(let field, let needle):
            let path = try KeyPath(field, path: "filter.\(field)")
            let folded = FilterText.fold(needle)
            return folded.isEmpty
                ? isText(path)
                : JSONPredicateSQL(
                    sql: "(\(isText(path).sql) AND instr(CAST(\(FilterText.foldFunction)(\(path.valueSQL)) AS BLOB), ?) > 0)",
                    parameters: [.blob(Array(folded.utf8))])
        case .hasMember(let field, let member):
            let path = try KeyPath(field, path: "filter.\(field)")
            guard !path.isDocumentID, !path.isExpiration else { return .never }
            return JSONPredicateSQL(
                sql: "(\(path.typeSQL) IS 'array' AND EXISTS (SELECT 1 FROM json_each(d.body, \(path.sqlLiteral)) j "
                    + "WHERE j.type = 'text' AND j.value = ?))",
                parameters: [.text(member)])
        case .exists(let field, let present):
            let path = try KeyPath(field, path: "filter.\(field)")
            let null = isNull(path)
            return present ? JSONPredicateSQL(sql: "NOT \(null.sql)", parameters: []) : null
        }
    }

    /// Absent or JSON null: one value.
    private static func isNull(_ path: KeyPath) -> JSONPredicateSQL {
        JSONPredicateSQL(sql: "(IFNULL(\(path.typeSQL), 'null') = 'null')", parameters: [])
    }

    private static func isText(_ path: KeyPath) -> JSONPredicateSQL {
        JSONPredicateSQL(sql: "(\(path.typeSQL) IS 'text')", parameters: [])
    }

    /// The JSON types an operand's value must have (a test that is 0 or 1, never NULL,
    /// for absent values too), and the operand as SQL binds it.
    private static func typed(_ operand: RecordValue) -> ((KeyPath) -> String, SQLiteValue)? {
        switch operand {
        case .string(let text): return ({ "(\($0.typeSQL) IS 'text')" }, .text(text))
        case .number(let number): return ({ "(IFNULL(\($0.typeSQL), '') IN ('integer', 'real'))" }, .real(number))
        case .bool(let flag): return ({ "(IFNULL(\($0.typeSQL), '') IN ('true', 'false'))" }, .integer(flag ? 1 : 0))
        case .null, .stringSet: return nil
        }
    }

    private static func join(_ parts: [RecordPredicate], with connective: String) throws(AccordError) -> JSONPredicateSQL {
        var compiled: [JSONPredicateSQL] = []
        for part in parts { compiled.append(try compile(part)) }
        return joined(compiled, with: connective)
    }

    private static func joined(_ parts: [JSONPredicateSQL], with connective: String) -> JSONPredicateSQL {
        guard parts.count > 1 else { return parts.first ?? (connective == "AND" ? .always : .never) }
        return JSONPredicateSQL(
            sql: "(" + parts.map(\.sql).joined(separator: " \(connective) ") + ")",
            parameters: parts.flatMap(\.parameters))
    }
}
