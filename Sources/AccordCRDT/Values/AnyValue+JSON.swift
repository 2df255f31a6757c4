/// JSON text for values: Yjs stores embeds and format values in update v1 as
/// `JSON.stringify` output, and awareness states travel as JSON text.
extension AnyValue {
    /// The value as compact JSON, formatted like JavaScript's `JSON.stringify`.
    /// `undefined` becomes `null` inside arrays and is dropped from objects, as in JS;
    /// at top level it is the literal `undefined` (what Yjs's ContentJSON writes).
    public var jsonText: String {
        var out = ""
        writeJSON(to: &out)
        return out
    }

    func writeJSON(to out: inout String) {
        switch self {
        case .undefined: out += "undefined"
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += Self.jsNumberText(d)
        case .string(let s): Self.writeJSONString(s, to: &out)
        case .bytes(let b):
            // JSON.stringify(Uint8Array) gives an object keyed by index.
            out += "{"
            for (i, byte) in b.enumerated() {
                if i > 0 { out += "," }
                out += "\"\(i)\":\(byte)"
            }
            out += "}"
        case .array(let a):
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                if case .undefined = v { out += "null" } else { v.writeJSON(to: &out) }
            }
            out += "]"
        case .object(let o):
            out += "{"
            var first = true
            for (k, v) in o.jsKeyOrder {
                if case .undefined = v { continue }
                if !first { out += "," }
                first = false
                Self.writeJSONString(k, to: &out)
                out += ":"
                v.writeJSON(to: &out)
            }
            out += "}"
        }
    }

    /// JavaScript's `Number.prototype.toString` for doubles (ECMA-262 Number::toString):
    /// the shortest round-trip digits, laid out by JS's rules (`1e+21`, `1e-7`,
    /// `0.00001`, `1152921504606847000`). NaN and infinities become `null`, as in JSON.
    static func jsNumberText(_ d: Double) -> String {
        if !d.isFinite { return "null" }
        if d == 0 { return "0" }
        if d.rounded(.towardZero) == d, d.magnitude < 9_007_199_254_740_992 { return String(Int64(d)) }
        // Swift's description also prints the shortest round-trip digits; take them apart.
        let text = d.magnitude.description  // "1.2345e+20", "123.45", "1e-07"
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exponent = Int(text[text.index(after: e)...]) ?? 0
        }
        var digits: String
        var pointAt: Int
        if let dot = mantissa.firstIndex(of: ".") {
            digits = String(mantissa[..<dot]) + mantissa[mantissa.index(after: dot)...]
            pointAt = mantissa.distance(from: mantissa.startIndex, to: dot)
        } else {
            digits = String(mantissa)
            pointAt = digits.count
        }
        while digits.count > 1, digits.first == "0" { digits.removeFirst(); pointAt -= 1 }
        while digits.count > 1, digits.last == "0" { digits.removeLast() }
        let k = digits.count
        let n = pointAt + exponent  // value = 0.digits × 10^n
        var out = d < 0 ? "-" : ""
        if k <= n && n <= 21 {
            out += digits + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            out += digits.prefix(n) + "." + digits.dropFirst(n)
        } else if -6 < n && n <= 0 {
            out += "0." + String(repeating: "0", count: -n) + digits
        } else {
            out += String(digits.prefix(1))
            if k > 1 { out += "." + digits.dropFirst() }
            out += "e" + (n - 1 >= 0 ? "+" : "-") + String(abs(n - 1))
        }
        return out
    }

    static func writeJSONString(_ s: String, to out: inout String) {
        // Only ASCII bytes are ever escaped (every byte of a multi-byte UTF-8 sequence is
        // 0x80 or above), so a string without them is written whole.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            out += "\""
            out += s
            out += "\""
            return
        }
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }

    /// Parses JSON text (RFC 8259, plus the bare word `undefined`, which Yjs writes for
    /// undefined values). Throws ``ErrorCode/malformedJSON`` on bad input.
    public init(jsonText: String) throws(AccordError) {
        var parser = JSONParser(Array(jsonText.utf8))
        self = try parser.parseDocument()
    }

    /// Parses JSON bytes, refusing with ``ErrorCode/invalidArgument`` an object that names
    /// a key twice (keys compared as Swift strings, as a dictionary of them would);
    /// other failures are ``ErrorCode/malformedJSON``. For request bodies, where a
    /// repeated key is ambiguous: parsers disagree on which value wins.
    package init(jsonRefusingDuplicateKeys bytes: [UInt8]) throws(AccordError) {
        var parser = JSONParser(bytes)
        parser.refusesDuplicateKeys = true
        self = try parser.parseDocument()
    }
}
