import AccordCRDT
import AccordRecords

/// The server's bounds on a filter, checked before it is compiled, so one request
/// cannot make the index compare an unbounded number of conditions:
///
/// - an `$in` / `$nin` list holds at most ``maxInList`` values
///   (`QUERY_IN_LIST_TOO_LARGE`, naming the field and the count), and so does an `$or`
///   of equality branches on the same fields (the same list, spelled as branches);
/// - the whole filter costs at most ``maxBinds`` bound parameters
///   (`QUERY_FILTER_TOO_MANY_BINDS`). Each condition costs one: a plain value, an
///   operator with its operand, and a whole `$in` / `$nin` list. An `$or` whose branches
///   all test equality on the same fields is one list per field, so it costs one per
///   field however many branches it has; any other `$or` or `$and` costs what its
///   branches cost.
///
/// The shape itself (unknown operators, wrong operands) is the query engine's to judge
/// (`INVALID_QUERY`); this walk only counts what it finds.
enum FilterLimits {
    static let maxInList = 1000
    static let maxBinds = 100

    static func check(_ filter: Filter) throws(AccordError) {
        let binds = try cost(filter.json)
        guard binds <= maxBinds else {
            throw AccordError(
                .queryFilterTooManyBinds, "the filter needs \(binds) bound parameters; the limit is \(maxBinds)",
                details: ["binds": String(binds), "limit": String(maxBinds)])
        }
    }

    /// The cost of one filter object.
    private static func cost(_ filter: AnyValue) throws(AccordError) -> Int {
        guard case .object(let entries) = filter else { return 0 }
        var total = 0
        for (key, value) in entries {
            if key == "$and" || key == "$or" {
                guard case .array(let branches) = value else { continue }
                if key == "$or", let fields = equalityFields(branches) {
                    try requireListSize(branches.count, field: fields.joined(separator: ","), operator: "$or")
                    total += fields.count
                } else {
                    for branch in branches { total += try cost(branch) }
                }
            } else {
                total += try conditionCost(field: key, value)
            }
        }
        return total
    }

    /// One field's condition: a plain value, or an object of operators.
    private static func conditionCost(field: String, _ condition: AnyValue) throws(AccordError) -> Int {
        guard case .object(let operators) = condition, operators.keys.allSatisfy({ $0.hasPrefix("$") }) else { return 1 }
        for (name, operand) in operators where name == "$in" || name == "$nin" {
            if case .array(let list) = operand { try requireListSize(list.count, field: field, operator: name) }
        }
        return operators.count
    }

    /// The fields, when every branch is an object of plain equalities (`{f: v}` or
    /// `{f: {"$eq": v}}`) on the same fields; nil otherwise.
    private static func equalityFields(_ branches: [AnyValue]) -> [String]? {
        var fields: [String]?
        for branch in branches {
            guard case .object(let entries) = branch, !entries.keys.isEmpty else { return nil }
            for (key, value) in entries {
                guard !key.hasPrefix("$") else { return nil }
                if case .object(let operators) = value, operators.keys != ["$eq"] { return nil }
                if case .array = value { return nil }
            }
            let names = entries.keys.sorted()
            if let known = fields, known != names { return nil }
            fields = names
        }
        return fields
    }

    private static func requireListSize(_ count: Int, field: String, operator name: String) throws(AccordError) {
        guard count > maxInList else { return }
        throw AccordError(
            .queryInListTooLarge,
            "the \(name) list of field \"\(field)\" holds \(count) values; the limit is \(maxInList)",
            details: ["field": field, "count": String(count), "limit": String(maxInList)])
    }
}
