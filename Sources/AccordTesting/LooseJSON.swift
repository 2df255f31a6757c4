import AccordCRDT

/// Equality for JSON views that come from different engines.
///
/// pycrdt (Yrs) reports every number as a float and Accord reports integral numbers as
/// integers, so numbers compare by value; objects ignore key order; everything else
/// compares exactly.
public enum LooseJSON {
    public static func equal(_ a: AnyValue, _ b: AnyValue) -> Bool {
        switch (a, b) {
        case (.int, _), (.double, _):
            guard let x = a.doubleValue, let y = b.doubleValue else { return false }
            return x == y || (x.isNaN && y.isNaN)
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.entries.allSatisfy { e in y[e.key].map { equal(e.value, $0) } ?? false }
        default:
            return a == b
        }
    }

    /// The first place where `a` and `b` differ, as a path and both values; nil when equal.
    public static func firstDifference(_ a: AnyValue, _ b: AnyValue, path: String = "$") -> String? {
        switch (a, b) {
        case (.array(let x), .array(let y)):
            for (i, (p, q)) in zip(x, y).enumerated() {
                if let d = firstDifference(p, q, path: "\(path)[\(i)]") { return d }
            }
            if x.count != y.count { return "\(path): \(x.count) elements vs \(y.count)" }
            return nil
        case (.object(let x), .object(let y)):
            for key in Set(x.keys).union(y.keys).sorted() {
                guard let p = x[key], let q = y[key] else {
                    return "\(path).\(key): \(x[key]?.jsonText ?? "absent") vs \(y[key]?.jsonText ?? "absent")"
                }
                if let d = firstDifference(p, q, path: "\(path).\(key)") { return d }
            }
            return nil
        default:
            return equal(a, b) ? nil : "\(path): \(a.jsonText) vs \(b.jsonText)"
        }
    }
}
