import AccordCRDT
import AccordRecords
import AccordStore

/// An aggregation (the records ``AggregateOptions``) over the documents of one
/// collection, checked once: group and operation names are key paths, the filter is the
/// query filter. The filter runs in SQL; the grouping and the operations run here over
/// each matching document's values at the named key paths.
///
/// Document values are JSON, not typed fields, so:
/// - a scalar (string, number, boolean) is its own group; absent and null are the null
///   group; an object is in the null group too (it is no value a row can hold);
/// - an array is a facet: each distinct string member is its own group (the document
///   counts once per member), as a records string-set field is and as `$contains` reads
///   an array; an array without string members is in the null group. Two arrays grouped
///   on give every pair of members;
/// - `.stringSetMembership(field:contains:)` groups by whether the array at the path has
///   that string member (`"true"` / `"false"`; anything else is `"false"`);
/// - `sum` and `avg` take the numbers at the path and skip other values; `min` and `max`
///   take the scalars, ordered as query sorting orders them (booleans, then numbers,
///   then strings);
/// - result rows are ordered by the sort key, then the group keys, each in that order
///   (null first).
struct DocumentAggregatePlan {
    enum Group {
        case value(KeyPath)
        case membership(KeyPath, member: String)
    }

    /// A document's value at one key path, as grouping and the operations see it.
    enum PathValue {
        case scalar(RecordValue)
        /// An array: its distinct string members, in order.
        case array([String])
        case object
    }

    let options: AggregateOptions
    let predicate: JSONPredicateSQL
    let compiled: RecordPredicate
    let groups: [Group]
    /// Each operation and the index of its key path in ``paths`` (nil for count).
    let operations: [(operation: AggregateOptions.Operation, path: Int?)]
    /// The distinct key paths read from each document.
    let paths: [KeyPath]
    let resultKeys: [String]

    init(_ options: AggregateOptions) throws(AccordError) {
        self.options = options
        guard options.documents == nil else {
            throw KeyPath.invalid("documents", "a collection aggregation reads its own documents; leave documents nil")
        }
        compiled = try options.filter.compile()
        predicate = try JSONPredicateSQL.compile(compiled)
        var paths: [KeyPath] = []
        func slot(_ path: KeyPath) -> Int {
            if let index = paths.firstIndex(of: path) { return index }
            paths.append(path)
            return paths.count - 1
        }
        var keys: Set<String> = []
        var groups: [Group] = []
        for (index, group) in options.groupBy.enumerated() {
            let at = "groupBy[\(index)]"
            guard keys.insert(group.key).inserted else { throw KeyPath.invalid(at, "group \"\(group.key)\" appears twice") }
            switch group {
            case .field(let name):
                let path = try KeyPath(name, path: at)
                _ = slot(path)
                groups.append(.value(path))
            case .stringSetMembership(let name, let member):
                let path = try KeyPath(name, path: at)
                _ = slot(path)
                groups.append(.membership(path, member: member))
            }
        }
        guard !options.operations.isEmpty else { throw KeyPath.invalid("operations", "at least one operation is needed") }
        var operations: [(AggregateOptions.Operation, Int?)] = []
        var resultKeys: [String] = []
        for (index, operation) in options.operations.enumerated() {
            let at = "operations[\(index)]"
            let key = options.operations.count == 1 ? "value" : operation.key
            guard keys.insert(key).inserted else { throw KeyPath.invalid(at, "result \"\(key)\" appears twice") }
            resultKeys.append(key)
            switch operation {
            case .count:
                operations.append((operation, nil))
            case .sum(let name), .avg(let name), .min(let name), .max(let name):
                operations.append((operation, slot(try KeyPath(name, path: at))))
            }
        }
        if let sort = options.sort, !keys.contains(sort.key) {
            throw KeyPath.invalid("sort", "\"\(sort.key)\" is neither a group nor a result of this aggregation")
        }
        if let limit = options.limit, limit < 0 { throw KeyPath.invalid("limit", "must not be negative") }
        self.groups = groups
        self.operations = operations
        self.paths = paths
        self.resultKeys = resultKeys
    }

    // MARK: Evaluation

    /// The result rows over the matching documents, each given as its values at ``paths``.
    func rows(_ documents: [[PathValue]]) -> [AggregateRow] {
        var members: [[RecordValue]: [Int]] = [:]
        var order: [[RecordValue]] = []
        for (index, values) in documents.enumerated() {
            for key in groupKeys(values) {
                if members[key] == nil { order.append(key) }
                members[key, default: []].append(index)
            }
        }
        if groups.isEmpty, order.isEmpty {
            order = [[]]
            members[[]] = []
        }
        var rows: [AggregateRow] = order.map { key in
            var row: [String: RecordValue] = [:]
            for (index, group) in options.groupBy.enumerated() { row[group.key] = key[index] }
            let inGroup = members[key] ?? []
            for (index, entry) in operations.enumerated() {
                let values: [PathValue] = inGroup.map { document in
                    guard let path = entry.path else { return .scalar(.null) }
                    return documents[document][path]
                }
                row[resultKeys[index]] = Self.compute(entry.operation, values)
            }
            return AggregateRow(row)
        }
        rows.sort(by: precedes)
        if let limit = options.limit { rows = Array(rows.prefix(limit)) }
        return rows
    }

    /// The groups a document falls in: one, or one per member of each array grouped on.
    private func groupKeys(_ values: [PathValue]) -> [[RecordValue]] {
        var keys: [[RecordValue]] = [[]]
        for group in groups {
            let choices: [RecordValue]
            switch group {
            case .value(let path):
                switch values[paths.firstIndex(of: path)!] {
                case .scalar(let value): choices = [value]
                case .array(let strings): choices = strings.isEmpty ? [.null] : strings.map { .string($0) }
                case .object: choices = [.null]
                }
            case .membership(let path, let member):
                var has = false
                if case .array(let strings) = values[paths.firstIndex(of: path)!] { has = strings.contains { $0.utf8.elementsEqual(member.utf8) } }
                choices = [.string(has ? "true" : "false")]
            }
            keys = keys.flatMap { key in choices.map { key + [$0] } }
        }
        return keys
    }

    private static func compute(_ operation: AggregateOptions.Operation, _ values: [PathValue]) -> RecordValue {
        var numbers: [Double] = []
        var scalars: [RecordValue] = []
        for case .scalar(let value) in values where value != .null {
            scalars.append(value)
            if case .number(let number) = value { numbers.append(number) }
        }
        switch operation {
        case .count: return .number(Double(values.count))
        case .sum: return .number(numbers.reduce(0, +))
        case .avg: return numbers.isEmpty ? .null : .number(numbers.reduce(0, +) / Double(numbers.count))
        case .min: return scalars.min { compare($0, $1) < 0 } ?? .null
        case .max: return scalars.max { compare($0, $1) < 0 } ?? .null
        }
    }

    private func precedes(_ a: AggregateRow, _ b: AggregateRow) -> Bool {
        if let sort = options.sort {
            let order = Self.compare(a[sort.key] ?? .null, b[sort.key] ?? .null)
            if order != 0 { return sort.direction == .ascending ? order < 0 : order > 0 }
        }
        for group in options.groupBy {
            let order = Self.compare(a[group.key] ?? .null, b[group.key] ?? .null)
            if order != 0 { return order < 0 }
        }
        return false
    }

    /// The query sort order over scalars: null, booleans (false < true), numbers, strings
    /// (by code points, so UTF-8 bytes).
    static func compare(_ a: RecordValue, _ b: RecordValue) -> Int {
        let (ra, rb) = (rank(a), rank(b))
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.number(let x), .number(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.string(let x), .string(let y)):
            return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : (x.utf8.elementsEqual(y.utf8) ? 0 : 1)
        default: return 0
        }
    }

    private static func rank(_ value: RecordValue) -> Int {
        switch value {
        case .null: 0
        case .bool: 1
        case .number: 2
        case .string: 3
        case .stringSet: 4
        }
    }

    /// A value read from SQL as `json_type` and `json_extract` (or the id and expiration
    /// columns).
    static func pathValue(type: String?, value: SQLiteValue) -> PathValue {
        switch (type, value) {
        case ("true", _): return .scalar(.bool(true))
        case ("false", _): return .scalar(.bool(false))
        case (_, .integer(let number)) where type == "integer": return .scalar(.number(Double(number)))
        case (_, .real(let number)) where type == "real" || type == "integer": return .scalar(.number(number))
        case (_, .text(let text)) where type == "text": return .scalar(.string(text))
        case (_, .text(let text)) where type == "array":
            guard case .array(let elements)? = try? AnyValue(jsonText: text) else { return .array([]) }
            var strings: [String] = []
            for case .string(let member) in elements where !strings.contains(where: { $0.utf8.elementsEqual(member.utf8) }) {
                strings.append(member)
            }
            return .array(strings)
        case ("object", _): return .object
        default: return .scalar(.null)
        }
    }
}
