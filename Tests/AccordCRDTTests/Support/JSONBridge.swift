import Foundation
import AccordCRDT
import AccordTesting

/// Converts between Foundation JSON (from the vector files) and Accord values.
enum JSONBridge {
    /// A vector value: plain JSON plus the `$bigint`, `$bytes`, `$undefined` markers.
    static func value(_ any: Any) -> AnyValue {
        switch any {
        case is NSNull: return .null
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
            let d = n.doubleValue
            if d.rounded() == d, abs(d) < 9e15, !(d == 0 && d.sign == .minus) { return .int(n.int64Value) }
            return .double(d)
        case let s as String: return .string(s)
        case let a as [Any]: return .array(a.map(value))
        case let o as [String: Any]:
            if let big = o["$bigint"] as? String { return .int(Int64(big)!) }
            if let hex = o["$bytes"] as? String { return .bytes(Hex.decode(hex)) }
            if o["$undefined"] != nil { return .undefined }
            return .object(OrderedObject(o.keys.sorted().map { ($0, value(o[$0]!)) }))
        default: return .null
        }
    }

    /// Loose equality used for JSON views: numbers compare as doubles (pycrdt reports
    /// every number as a float), objects ignore key order.
    static func equal(_ a: AnyValue, _ b: AnyValue) -> Bool { LooseJSON.equal(a, b) }
}
