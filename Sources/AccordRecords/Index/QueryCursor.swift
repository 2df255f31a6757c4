public import AccordCRDT
public import AccordStore
import Foundation

/// Where a page ended: the sort-key values, id and document of its last record, as
/// opaque base64 text. The next page starts after that record in the query's order,
/// so records inserted or removed between pages never make a page repeat or skip one
/// that still matches (keyset paging, no offsets).
public struct QueryCursor: Sendable, Hashable {
    /// The last record's value for each sort key, then its id and document.
    var values: [RecordValue]

    init(after record: IndexedRecord, sortOrder: [SortKey]) {
        values = sortOrder.map { record[$0.field] ?? .null } + [.string(record.id), .string(record.document.rawValue)]
    }

    /// The text handed to callers.
    public var text: String {
        // Sort keys are never string sets, so every value is a scalar.
        let json = AnyValue.array(values.map(\.json))
        return Data(json.jsonText.utf8).base64EncodedString()
    }

    /// Reads a cursor made for `sortOrder`.
    /// - Throws: `INVALID_QUERY` when the text is not a cursor of this query's shape.
    public init(text: String, sortOrder: [SortKey]) throws(AccordError) {
        guard let data = Data(base64Encoded: text), let json = try? AnyValue(jsonText: String(decoding: data, as: UTF8.self)),
              case .array(let elements) = json, elements.count == sortOrder.count + 2
        else {
            throw AccordError(.invalidQuery, "cursor: not a cursor of this query", details: ["path": "cursor"])
        }
        var values: [RecordValue] = []
        for element in elements {
            switch element {
            case .null: values.append(.null)
            case .bool(let flag): values.append(.bool(flag))
            case .int(let number): values.append(.number(Double(number)))
            case .double(let number) where number.isFinite: values.append(.number(number))
            case .string(let text): values.append(.string(text))
            default: throw AccordError(.invalidQuery, "cursor: not a cursor of this query", details: ["path": "cursor"])
            }
        }
        guard case .string = values[values.count - 2], case .string = values[values.count - 1] else {
            throw AccordError(.invalidQuery, "cursor: not a cursor of this query", details: ["path": "cursor"])
        }
        self.values = values
    }

    /// The SQL condition "comes after the cursor" in the order `ORDER BY` gives: each
    /// sort key in turn (NULL first ascending, last descending), then id, then document.
    /// In `oneDocument` (a query scoped to one document, which does not join the
    /// documents' text) ids are unique, so the document is left out.
    func condition(_ sortOrder: [SortKey], _ modelTables: ModelTables, oneDocument: Bool) -> SQLPredicate {
        var keys: [(column: String, type: FieldType, direction: SortKey.Direction, value: RecordValue)] = []
        for (index, key) in sortOrder.enumerated() {
            let type = modelTables.schema.field(key.field)?.type ?? .string
            keys.append(("r.\(modelTables.column(key.field))", type, key.direction, values[index]))
        }
        keys.append(("r.id", .string, .ascending, values[values.count - 2]))
        if !oneDocument { keys.append(("d.document", .string, .ascending, values[values.count - 1])) }
        var alternatives: [SQLPredicate] = []
        var equalSoFar: [SQLPredicate] = []
        for key in keys {
            let after = Self.after(key.column, key.type, key.direction, key.value)
            alternatives.append(Self.all(equalSoFar + [after]))
            equalSoFar.append(Self.equal(key.column, key.type, key.value))
        }
        return SQLPredicate(
            sql: "(" + alternatives.map(\.sql).joined(separator: " OR ") + ")",
            parameters: alternatives.flatMap(\.parameters))
    }

    private static func after(_ column: String, _ type: FieldType, _ direction: SortKey.Direction, _ value: RecordValue) -> SQLPredicate {
        let bound = SQLPredicate.parameter(value, for: type)
        switch (direction, bound) {
        case (.ascending, nil): return SQLPredicate(sql: "\(column) IS NOT NULL", parameters: [])
        case (.ascending, let bound?): return SQLPredicate(sql: "(\(column) IS NOT NULL AND \(column) > ?)", parameters: [bound])
        case (.descending, nil): return .never
        case (.descending, let bound?): return SQLPredicate(sql: "(\(column) IS NULL OR \(column) < ?)", parameters: [bound])
        }
    }

    private static func equal(_ column: String, _ type: FieldType, _ value: RecordValue) -> SQLPredicate {
        guard let bound = SQLPredicate.parameter(value, for: type) else {
            return SQLPredicate(sql: "\(column) IS NULL", parameters: [])
        }
        return SQLPredicate(sql: "(\(column) IS NOT NULL AND \(column) = ?)", parameters: [bound])
    }

    private static func all(_ parts: [SQLPredicate]) -> SQLPredicate {
        SQLPredicate(sql: "(" + parts.map(\.sql).joined(separator: " AND ") + ")", parameters: parts.flatMap(\.parameters))
    }
}

/// One page of a query: its records, and where the next page starts. `hasMore` is
/// true exactly when `nextCursor` is set.
public struct QueryPage: Sendable, Hashable {
    public var data: [IndexedRecord]
    public var nextCursor: String?
    public var hasMore: Bool { nextCursor != nil }
}
