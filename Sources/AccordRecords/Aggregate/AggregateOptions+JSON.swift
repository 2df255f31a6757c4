public import AccordCRDT
import AccordStore

/// Aggregations as JSON, the shape `accord records aggregate --options` and other SDKs
/// send:
///
/// ```json
/// {"groupBy": ["category", {"field": "tags", "contains": "urgent"}],
///  "operations": [{"type": "count"}, {"type": "sum", "field": "hours"}],
///  "filter": {"done": false}, "sort": {"field": "count", "direction": -1},
///  "limit": 10, "documents": ["inbox"]}
/// ```
///
/// Every key is optional; `operations` defaults to one count.
extension AggregateOptions {
    static let jsonKeys = ["groupBy", "operations", "filter", "sort", "limit", "documents"]

    /// Reads the JSON form. Names are resolved against the model when the aggregation
    /// runs, as for the Swift form.
    /// - Throws: `INVALID_QUERY` naming the path of the fault (`operations[1].type`).
    public init(json: AnyValue) throws(AccordError) {
        guard case .object(let entries) = json else { throw AggregatePlan.invalid("options", "expected an object") }
        for key in entries.keys where !Self.jsonKeys.contains(key) {
            throw AggregatePlan.invalid(key, "unknown key (expected \(Self.jsonKeys.joined(separator: ", ")))")
        }
        self.init()
        if let list = entries["groupBy"] {
            groupBy = try Self.elements(list, path: "groupBy").enumerated().map { index, element throws(AccordError) in
                try Self.group(element, path: "groupBy[\(index)]")
            }
        }
        if let list = entries["operations"] {
            operations = try Self.elements(list, path: "operations").enumerated().map { index, element throws(AccordError) in
                try Self.operation(element, path: "operations[\(index)]")
            }
        }
        if let filter = entries["filter"] {
            guard case .object = filter else { throw AggregatePlan.invalid("filter", "expected an object") }
            self.filter = Filter(json: filter)
        }
        if let sort = entries["sort"] { self.sort = try Self.sort(sort) }
        if let limit = entries["limit"] {
            guard case .int(let number) = limit, number >= 0, number <= Int64(Int32.max) else {
                throw AggregatePlan.invalid("limit", "expected a whole number, not negative")
            }
            self.limit = Int(number)
        }
        if let list = entries["documents"] {
            documents = try Self.elements(list, path: "documents").enumerated().map { index, element throws(AccordError) in
                guard case .string(let text) = element, let id = DocumentID(rawValue: text) else {
                    throw AggregatePlan.invalid("documents[\(index)]", "expected a document id")
                }
                return id
            }
        }
    }

    /// One result row as a JSON object: the group keys in `groupBy` order, then the
    /// results in `operations` order.
    public func json(_ row: AggregateRow) -> AnyValue {
        var entries: [(String, AnyValue)] = []
        for group in groupBy { entries.append((group.key, (row[group.key] ?? .null).json)) }
        for index in operations.indices {
            let key = resultKey(index)
            entries.append((key, (row[key] ?? .null).json))
        }
        return .object(OrderedObject(entries))
    }

    private static func elements(_ json: AnyValue, path: String) throws(AccordError) -> [AnyValue] {
        guard case .array(let elements) = json else { throw AggregatePlan.invalid(path, "expected an array") }
        return elements
    }

    /// `"field"` or `{"field": "tags", "contains": "urgent"}`.
    private static func group(_ json: AnyValue, path: String) throws(AccordError) -> GroupBy {
        if case .string(let field) = json { return .field(field) }
        guard case .object(let entries) = json, Set(entries.keys) == ["field", "contains"],
              case .string(let field)? = entries["field"], case .string(let member)? = entries["contains"]
        else {
            throw AggregatePlan.invalid(path, "expected a field name or {\"field\": name, \"contains\": member}")
        }
        return .stringSetMembership(field: field, contains: member)
    }

    /// `{"type": "count"}` or `{"type": "sum" | "avg" | "min" | "max", "field": name}`.
    private static func operation(_ json: AnyValue, path: String) throws(AccordError) -> Operation {
        guard case .object(let entries) = json, case .string(let type)? = entries["type"] else {
            throw AggregatePlan.invalid(path, "expected {\"type\": ..., \"field\": ...}")
        }
        if type == "count" {
            guard entries.keys == ["type"] else { throw AggregatePlan.invalid(path, "count takes no field") }
            return .count
        }
        guard Set(entries.keys) == ["type", "field"], case .string(let field)? = entries["field"] else {
            throw AggregatePlan.invalid(path, "\(type) needs a field: {\"type\": \"\(type)\", \"field\": name}")
        }
        switch type {
        case "sum": return .sum(field)
        case "avg": return .avg(field)
        case "min": return .min(field)
        case "max": return .max(field)
        default: throw AggregatePlan.invalid("\(path).type", "unknown operation \"\(type)\" (expected count, sum, avg, min or max)")
        }
    }

    /// `{"field": key, "direction": 1 | -1}`; the key is a group key or a result key.
    private static func sort(_ json: AnyValue) throws(AccordError) -> Sort {
        guard case .object(let entries) = json, Set(entries.keys).isSubset(of: ["field", "direction"]),
              case .string(let key)? = entries["field"]
        else {
            throw AggregatePlan.invalid("sort", "expected {\"field\": key, \"direction\": 1 or -1}")
        }
        var direction = SortKey.Direction.ascending
        if let value = entries["direction"] {
            guard case .int(let number) = value, let given = SortKey.Direction(rawValue: Int(number)) else {
                throw AggregatePlan.invalid("sort.direction", "expected 1 or -1")
            }
            direction = given
        }
        return Sort(key, direction)
    }
}
