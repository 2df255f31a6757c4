import AccordCRDT
import AccordRecords
import AccordStore
import Foundation

/// A collection query as SQL: the filter's condition, the sort terms (per sort key its
/// type rank then its value, then the id), and the keyset condition of a cursor.
struct DocumentQueryPlan {
    let compiled: RecordPredicate
    let predicate: JSONPredicateSQL
    /// ORDER BY terms, the id last (always ascending).
    let sortTerms: [(expression: String, descending: Bool)]
    let select: [KeyPath]?
    /// Names the query a cursor belongs to: its filter and sort keys.
    let fingerprint: String

    init(_ filter: Filter, _ options: DocumentQueryOptions) throws(AccordError) {
        compiled = try filter.compile()
        predicate = try JSONPredicateSQL.compile(compiled)
        var terms: [(expression: String, descending: Bool)] = []
        var spec: [AnyValue] = []
        for (index, key) in options.sortOrder.enumerated() {
            let path = try KeyPath(key.field, path: "sortOrder[\(index)]")
            let descending = key.direction == .descending
            let rank = Self.typeRank(path)
            terms.append((rank, descending))
            terms.append(("(CASE WHEN \(rank) BETWEEN 1 AND 3 THEN \(path.valueSQL) END)", descending))
            spec.append(.string((descending ? "-" : "+") + path.text))
        }
        terms.append(("d.id", false))
        sortTerms = terms
        if let paths = options.select {
            var parsed: [KeyPath] = []
            for (index, path) in paths.enumerated() { parsed.append(try KeyPath(path, path: "select[\(index)]")) }
            select = parsed
        } else {
            select = nil
        }
        guard options.offset >= 0, (options.limit ?? 0) >= 0 else {
            throw AccordError(.invalidQuery, "limit and offset may not be negative")
        }
        fingerprint = AnyValue.array([filter.json, .array(spec)]).jsonText
    }

    /// Sorting by type first: null (and absent) 0, booleans 1, numbers 2, strings 3,
    /// arrays and objects 4.
    static func typeRank(_ path: KeyPath) -> String {
        "(CASE IFNULL(\(path.typeSQL), 'null') WHEN 'null' THEN 0 WHEN 'true' THEN 1 WHEN 'false' THEN 1 "
            + "WHEN 'integer' THEN 2 WHEN 'real' THEN 2 WHEN 'text' THEN 3 ELSE 4 END)"
    }

    var orderBy: String {
        sortTerms.map { "\($0.expression) \($0.descending ? "DESC" : "ASC")" }.joined(separator: ", ")
    }

    /// The sort terms as extra result columns (from column 3 on), for the next cursor.
    var sortColumns: String { sortTerms.map(\.expression).joined(separator: ", ") }

    // MARK: Cursors

    /// The opaque cursor after a row: base64 of JSON `[fingerprint, term values..., id]`.
    func cursor(_ values: [SQLiteValue]) -> String {
        var items: [AnyValue] = [.string(fingerprint)]
        for value in values {
            switch value {
            case .null: items.append(.null)
            case .integer(let i): items.append(.int(i))
            case .real(let d): items.append(.double(d))
            case .text(let s): items.append(.string(s))
            case .blob: items.append(.null)
            }
        }
        return Data(AnyValue.array(items).jsonText.utf8).base64EncodedString()
    }

    /// The condition "after the cursor's row" in the sort order: for some term, every
    /// earlier term equal and this one past it. The value term of a rank without values
    /// (null, arrays, objects) is NULL on both sides, so it is equal or never past.
    /// `INVALID_QUERY` for a cursor that is malformed or belongs to another query.
    func after(_ cursor: String) throws(AccordError) -> JSONPredicateSQL {
        let invalid = AccordError(.invalidQuery, "cursor: not a cursor of this query (filter and sort keys)")
        guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8),
            case .array(let items)? = try? AnyValue(jsonText: text), items.count == sortTerms.count + 1,
            items.first == .string(fingerprint)
        else { throw invalid }
        var values: [SQLiteValue] = []
        for item in items.dropFirst() {
            switch item {
            case .null: values.append(.null)
            case .int(let i): values.append(.integer(i))
            case .double(let d): values.append(.real(d))
            case .string(let s): values.append(.text(s))
            default: throw invalid
            }
        }
        guard case .text = values.last else { throw invalid }
        var branches: [String] = []
        var parameters: [SQLiteValue] = []
        for index in sortTerms.indices {
            var parts: [String] = []
            var branchParameters: [SQLiteValue] = []
            for earlier in 0..<index {
                parts.append("\(sortTerms[earlier].expression) IS ?")
                branchParameters.append(values[earlier])
            }
            guard values[index] != .null else { continue }  // nothing is past a NULL term here
            parts.append("\(sortTerms[index].expression) \(sortTerms[index].descending ? "<" : ">") ?")
            branchParameters.append(values[index])
            branches.append("(" + parts.joined(separator: " AND ") + ")")
            parameters += branchParameters
        }
        guard !branches.isEmpty else { return .never }
        return JSONPredicateSQL(sql: "(" + branches.joined(separator: " OR ") + ")", parameters: parameters)
    }
}
