public import AccordStore

/// An aggregation over the records of one model: groups, the operations computed per
/// group, a filter applied first, and the order and number of result rows.
///
/// - Absent and null form one group (key null). With no `groupBy` there is exactly one
///   row, even over no records.
/// - A string-set field in `groupBy` is a facet: each member is its own group (a record
///   counts once per member; one without members is in the null group). One facet per
///   aggregation.
/// - ``GroupBy/stringSetMembership(field:contains:)`` groups by whether a set has a
///   member: key `has_<field>_<value>`, values `"true"` / `"false"`.
/// - `count` counts records; `sum` of no values is 0; `avg`, `min` and `max` of no
///   values are null.
/// - One operation gives its value under the key `value`; two or more give `count`,
///   `sum_<field>`, `avg_<field>`, `min_<field>`, `max_<field>`.
public struct AggregateOptions: Sendable, Hashable {
    public enum GroupBy: Sendable, Hashable {
        case field(String)
        case stringSetMembership(field: String, contains: String)

        /// The key of this group's value in a result row.
        public var key: String {
            switch self {
            case .field(let name): name
            case .stringSetMembership(let field, let member): "has_\(field)_\(member)"
            }
        }
    }

    public enum Operation: Sendable, Hashable {
        case count
        case sum(String)
        case avg(String)
        case min(String)
        case max(String)

        /// The key of this operation's value when an aggregation has several.
        public var key: String {
            switch self {
            case .count: "count"
            case .sum(let field): "sum_\(field)"
            case .avg(let field): "avg_\(field)"
            case .min(let field): "min_\(field)"
            case .max(let field): "max_\(field)"
            }
        }

        var field: String? {
            switch self {
            case .count: nil
            case .sum(let field), .avg(let field), .min(let field), .max(let field): field
            }
        }
    }

    /// Result rows ordered by a group key or an operation's key (`value` when there is
    /// one operation), ties broken by the group keys in order.
    public struct Sort: Sendable, Hashable {
        public var key: String
        public var direction: SortKey.Direction
        public init(_ key: String, _ direction: SortKey.Direction = .ascending) {
            self.key = key
            self.direction = direction
        }
    }

    public var groupBy: [GroupBy]
    public var operations: [Operation]
    public var filter: Filter
    public var sort: Sort?
    public var limit: Int?
    /// nil for every document, `[]` for none.
    public var documents: [DocumentID]?

    public init(
        groupBy: [GroupBy] = [], operations: [Operation] = [.count], filter: Filter = .all, sort: Sort? = nil,
        limit: Int? = nil, documents: [DocumentID]? = nil
    ) {
        self.groupBy = groupBy
        self.operations = operations
        self.filter = filter
        self.sort = sort
        self.limit = limit
        self.documents = documents
    }

    /// The key of operation `index` in a result row.
    func resultKey(_ index: Int) -> String { operations.count == 1 ? "value" : operations[index].key }
}

/// One result row: each group key with its value, and each operation's result.
public struct AggregateRow: Sendable, Hashable {
    public var values: [String: RecordValue]

    public init(_ values: [String: RecordValue]) { self.values = values }

    public subscript(key: String) -> RecordValue? { values[key] }
}
