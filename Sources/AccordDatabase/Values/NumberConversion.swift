import AccordCRDT

/// Couchbase Lite's conversions between property types (Fleece's `asInt`, `asDouble`,
/// `asBool`), so a getter of one number type reads a property stored as another:
/// doubles truncate toward zero (and clamp to the integer range, NaN reading 0), booleans
/// read as 1 and 0, and any other type reads as the getter's default. A boolean getter
/// reads `false` only for absent, null, `false` and zero; every other value is `true`.
enum NumberConversion {
    static func int64(_ property: Property?) -> Int64 {
        guard case .scalar(let value) = property else { return 0 }
        switch value {
        case .int(let i): return i
        case .double(let d): return clamped(d)
        case .bool(let b): return b ? 1 : 0
        default: return 0
        }
    }

    static func double(_ property: Property?) -> Double {
        guard case .scalar(let value) = property else { return 0 }
        switch value {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .bool(let b): return b ? 1 : 0
        default: return 0
        }
    }

    static func bool(_ property: Property?) -> Bool {
        switch property {
        case nil: return false
        case .scalar(let value):
            switch value {
            case .undefined, .null: return false
            case .bool(let b): return b
            case .int(let i): return i != 0
            case .double(let d): return d != 0
            default: return true
            }
        case .dictionary, .array, .blob: return true
        }
    }

    /// A double as Int64: truncated toward zero, clamped to the range, NaN as 0.
    private static func clamped(_ d: Double) -> Int64 {
        if d.isNaN { return 0 }
        if d >= 9_223_372_036_854_775_807.0 { return .max }
        if d <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(d.rounded(.towardZero))
    }

    /// An integer as it is stored: exact within ±(2^53 - 1), where every JavaScript and
    /// Yjs peer reads it exactly; beyond that a double, as JavaScript would hold it.
    static func stored(_ i: Int64) -> AnyValue {
        abs(Double(i)) <= 9_007_199_254_740_991 ? .int(i) : .double(Double(i))
    }
}
