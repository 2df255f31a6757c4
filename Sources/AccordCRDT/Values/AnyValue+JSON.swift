/// JSON text for values: Yjs stores embeds and format values in update v1 as
/// `JSON.stringify` output, and awareness states travel as JSON text.
extension AnyValue {
    /// The value as compact JSON, formatted like JavaScript's `JSON.stringify`.
    /// `undefined` becomes `null` inside arrays and is dropped from objects, as in JS;
    /// at top level it is the literal `undefined` (what Yjs's ContentJSON writes).
    public var jsonText: String {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        writeJSON(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Writes the JSON as UTF-8 bytes (appending bytes is much cheaper than appending
    /// many small strings).
    func writeJSON(to out: inout [UInt8]) {
        switch self {
        case .undefined: out.append(contentsOf: "undefined".utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: b ? "true".utf8 : "false".utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d): out.append(contentsOf: Self.jsNumberText(d).utf8)
        case .string(let s): Self.writeJSONString(s, to: &out)
        case .bytes(let b):
            // JSON.stringify(Uint8Array) gives an object keyed by index.
            out.append(UInt8(ascii: "{"))
            for (i, byte) in b.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(contentsOf: "\"\(i)\":\(byte)".utf8)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if case .undefined = v { out.append(contentsOf: "null".utf8) } else { v.writeJSON(to: &out) }
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (k, v) in o.jsKeyOrder {
                if case .undefined = v { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                Self.writeJSONString(k, to: &out)
                out.append(UInt8(ascii: ":"))
                v.writeJSON(to: &out)
            }
            out.append(UInt8(ascii: "}"))
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
        var bytes: [UInt8] = []
        writeJSONString(s, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON string: only ASCII bytes are ever escaped (every byte of a multi-byte
    /// UTF-8 sequence is 0x80 or above), so runs of other bytes are copied whole.
    package static func writeJSONString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            // Most strings need no escape: one copy of the whole, without the run
            // bookkeeping below (a record's string-set column is several short ones).
            if !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
                out.append(contentsOf: utf8)
                return
            }
            var run = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                run = index + 1
                switch byte {
                case 0x22: out.append(contentsOf: "\\\"".utf8)
                case 0x5C: out.append(contentsOf: "\\\\".utf8)
                case 0x0A: out.append(contentsOf: "\\n".utf8)
                case 0x0D: out.append(contentsOf: "\\r".utf8)
                case 0x09: out.append(contentsOf: "\\t".utf8)
                case 0x08: out.append(contentsOf: "\\b".utf8)
                case 0x0C: out.append(contentsOf: "\\f".utf8)
                default:
                    let hex = String(byte, radix: 16)
                    out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
        }
        out.append(UInt8(ascii: "\""))
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
