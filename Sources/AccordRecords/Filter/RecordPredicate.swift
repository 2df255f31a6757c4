/// A compiled filter: what ``Filter`` means, with every operand checked. Both query
/// paths start from it: ``matches(_:)`` in memory, and the SQL compiler.
public indirect enum RecordPredicate: Sendable, Hashable {
    case all
    case and([RecordPredicate])
    case or([RecordPredicate])
    case not(RecordPredicate)
    /// The field holds a value equal to the operand; a null operand matches absent and null.
    case equals(field: String, RecordValue)
    /// The field holds a value of the operand's type that compares as asked.
    case compare(field: String, Comparison, RecordValue)
    /// ``equals(field:_:)`` for any of the operands.
    case isIn(field: String, [RecordValue])
    case startsWith(field: String, String)
    case endsWith(field: String, String)
    /// Case-folded substring.
    case containsText(field: String, String)
    /// A string-set member.
    case hasMember(field: String, String)
    /// Present and not null (true), or absent or null (false).
    case exists(field: String, Bool)

    public enum Comparison: String, Sendable, Hashable {
        case greater = "$gt"
        case greaterOrEqual = "$gte"
        case less = "$lt"
        case lessOrEqual = "$lte"

        func holds(_ order: Int) -> Bool {
            switch self {
            case .greater: order > 0
            case .greaterOrEqual: order >= 0
            case .less: order < 0
            case .lessOrEqual: order <= 0
            }
        }
    }

    /// Whether `record` satisfies the predicate: the in-memory path.
    public func matches(_ record: RecordData) -> Bool {
        switch self {
        case .all:
            return true
        case .and(let parts):
            return parts.allSatisfy { $0.matches(record) }
        case .or(let parts):
            return parts.contains { $0.matches(record) }
        case .not(let part):
            return !part.matches(record)
        case .equals(let field, let operand):
            return Self.equals(record[field], operand)
        case .compare(let field, let comparison, let operand):
            guard let value = record[field], let order = value.compare(operand) else { return false }
            return comparison.holds(order)
        case .isIn(let field, let operands):
            let value = record[field]
            return operands.contains { Self.equals(value, $0) }
        case .startsWith(let field, let prefix):
            guard case .string(let text)? = record[field] else { return false }
            return CodePoints.hasPrefix(text, prefix)
        case .endsWith(let field, let suffix):
            guard case .string(let text)? = record[field] else { return false }
            return CodePoints.hasSuffix(text, suffix)
        case .containsText(let field, let needle):
            guard case .string(let text)? = record[field] else { return false }
            return CodePoints.contains(CaseFolding.fold(text), CaseFolding.fold(needle))
        case .hasMember(let field, let member):
            guard case .stringSet(let set)? = record[field] else { return false }
            return set.contains(member)
        case .exists(let field, let present):
            return Self.isNull(record[field]) != present
        }
    }

    private static func equals(_ value: RecordValue?, _ operand: RecordValue) -> Bool {
        if case .null = operand { return isNull(value) }
        guard let value else { return false }
        return value.matches(operand)
    }

    private static func isNull(_ value: RecordValue?) -> Bool {
        guard let value else { return true }
        if case .null = value { return true }
        return false
    }
}
