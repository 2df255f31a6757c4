/// The value of one record field. `id` and `date` fields hold strings (a date is its
/// ISO-8601 text, as the document stores it); numbers are doubles.
public enum RecordValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case stringSet(StringSet)

    /// Whether two values are the same by the rules of filters: same type, numbers
    /// numerically, strings by code points, sets member by member.
    func matches(_ other: RecordValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return CodePoints.equal(a, b)
        case (.stringSet(let a), .stringSet(let b)): return a == b
        default: return false
        }
    }

    /// The order of two values of the same type (nil across types, and for sets,
    /// which have no order): false < true, numbers numerically, strings by code points.
    func compare(_ other: RecordValue) -> Int? {
        switch (self, other) {
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.number(let a), .number(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.string(let a), .string(let b)): return CodePoints.compare(a, b)
        default: return nil
        }
    }

    // Hashable by the same rules as `matches`, so values can key groups.
    public static func == (a: RecordValue, b: RecordValue) -> Bool { a.matches(b) }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(1); hasher.combine(value)
        case .number(let value): hasher.combine(2); hasher.combine(value)
        case .string(let value): hasher.combine(3); hasher.combine(Array(value.utf8))
        case .stringSet(let value): hasher.combine(4); hasher.combine(value)
        }
    }
}

extension RecordValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
}
