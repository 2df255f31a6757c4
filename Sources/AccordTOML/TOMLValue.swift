/// One TOML value.
///
/// Equality treats every NaN as equal to every other NaN (TOML has one `nan`, and a
/// round trip must compare equal to what went in); otherwise floats compare as `Double`.
/// Tables compare as maps, ignoring order and positions (see ``TOMLTable``).
public indirect enum TOMLValue: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    case offsetDateTime(TOMLDateTime)
    case localDateTime(TOMLDateTime)
    case localDate(TOMLDateTime)
    case localTime(TOMLDateTime)
    case array([TOMLValue])
    case table(TOMLTable)

    public static func == (lhs: TOMLValue, rhs: TOMLValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return a.utf8.elementsEqual(b.utf8)
        case let (.integer(a), .integer(b)): return a == b
        case let (.float(a), .float(b)): return a == b || (a.isNaN && b.isNaN)
        case let (.boolean(a), .boolean(b)): return a == b
        case let (.offsetDateTime(a), .offsetDateTime(b)),
            let (.localDateTime(a), .localDateTime(b)),
            let (.localDate(a), .localDate(b)),
            let (.localTime(a), .localTime(b)):
            return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.table(a), .table(b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let s):
            hasher.combine(0)
            TOMLKey.hashBytes(s, into: &hasher)
        case .integer(let i):
            hasher.combine(1)
            hasher.combine(i)
        case .float(let d):
            hasher.combine(2)
            hasher.combine(d.isNaN ? Double.nan.bitPattern : d.bitPattern == (-0.0 as Double).bitPattern ? 0 : d.bitPattern)
        case .boolean(let b):
            hasher.combine(3)
            hasher.combine(b)
        case .offsetDateTime(let d): hasher.combine(4); hasher.combine(d)
        case .localDateTime(let d): hasher.combine(5); hasher.combine(d)
        case .localDate(let d): hasher.combine(6); hasher.combine(d)
        case .localTime(let d): hasher.combine(7); hasher.combine(d)
        case .array(let a):
            hasher.combine(8)
            hasher.combine(a)
        case .table(let t):
            hasher.combine(9)
            hasher.combine(t)
        }
    }

    /// The table, if this is one.
    public var tableValue: TOMLTable? {
        if case .table(let t) = self { return t }
        return nil
    }

    /// The elements, if this is an array (arrays of tables included).
    public var arrayValue: [TOMLValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var integerValue: Int64? {
        if case .integer(let i) = self { return i }
        return nil
    }

    public var boolValue: Bool? {
        if case .boolean(let b) = self { return b }
        return nil
    }

    public var doubleValue: Double? {
        if case .float(let d) = self { return d }
        return nil
    }
}
