import AccordCRDT
import AccordRecords

/// The server's bounds on a filter, checked before it is compiled, so one request
/// cannot make SQLite bind and compare an unbounded number of values:
///
/// - an `$in` / `$nin` list holds at most ``maxInList`` values
///   (`QUERY_IN_LIST_TOO_LARGE`, naming the field and the count);
/// - the whole filter needs at most ``maxBinds`` bound parameters
///   (`QUERY_FILTER_TOO_MANY_BINDS`). Each operand costs one parameter: each value of
///   an `$in` / `$nin` list, each comparison, each plain value, so `{f: {$in: [a, b]}}`
///   and `{$or: [{f: a}, {f: b}]}` both cost two.
///
/// The shape itself (unknown operators, wrong operands) is the query engine's to judge
/// (`INVALID_QUERY`); this walk only counts what it finds.
enum FilterLimits {
    static let maxInList = 1000
    static let maxBinds = 100

    static func check(_ filter: Filter) throws(AccordError) {
        var binds = 0
        try count(filter.json, binds: &binds)
        guard binds <= maxBinds else {
            throw AccordError(
                .queryFilterTooManyBinds, "the filter needs \(binds) bound parameters; the limit is \(maxBinds)",
                details: ["binds": String(binds), "limit": String(maxBinds)])
        }
    }

    private static func count(_ filter: AnyValue, binds: inout Int) throws(AccordError) {
        guard case .object(let entries) = filter else { return }
        for (key, value) in entries {
            if key == "$and" || key == "$or" {
                guard case .array(let branches) = value else { continue }
                for branch in branches { try count(branch, binds: &binds) }
            } else {
                try countCondition(field: key, value, binds: &binds)
            }
        }
    }

    /// One field's condition: a plain value, or an object of operators.
    private static func countCondition(field: String, _ condition: AnyValue, binds: inout Int) throws(AccordError) {
        guard case .object(let operators) = condition, operators.keys.allSatisfy({ $0.hasPrefix("$") }) else {
            binds += 1
            return
        }
        for (name, operand) in operators {
            guard name == "$in" || name == "$nin", case .array(let list) = operand else {
                binds += 1
                continue
            }
            guard list.count <= maxInList else {
                throw AccordError(
                    .queryInListTooLarge,
                    "the \(name) list of field \"\(field)\" holds \(list.count) values; the limit is \(maxInList)",
                    details: ["field": field, "count": String(list.count), "limit": String(maxInList)])
            }
            binds += list.count
        }
    }
}
