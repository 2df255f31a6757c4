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
}

/// A small recursive-descent JSON parser with a depth bound.
struct JSONParser {
    let bytes: [UInt8]
    var i = 0
    static let maxDepth = 64

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func fail(_ message: String) -> AccordError {
        AccordError(.malformedJSON, message, details: ["offset": String(i)])
    }

    mutating func parseDocument() throws(AccordError) -> AnyValue {
        skipSpace()
        if bytes[i...].starts(with: Array("undefined".utf8)) {
            i += 9
            skipSpace()
            guard i == bytes.count else { throw fail("trailing characters after JSON value") }
            return .undefined
        }
        let v = try parseValue(depth: 0)
        skipSpace()
        guard i == bytes.count else { throw fail("trailing characters after JSON value") }
        return v
    }

    mutating func skipSpace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0a || bytes[i] == 0x0d || bytes[i] == 0x09 { i += 1 }
    }

    mutating func expectWord(_ word: String, _ value: AnyValue) throws(AccordError) -> AnyValue {
        let w = Array(word.utf8)
        guard bytes[i...].starts(with: w) else { throw fail("unexpected token") }
        i += w.count
        return value
    }

    mutating func parseValue(depth: Int) throws(AccordError) -> AnyValue {
        guard depth < Self.maxDepth else { throw fail("JSON nesting deeper than \(Self.maxDepth)") }
        skipSpace()
        guard i < bytes.count else { throw fail("unexpected end of JSON") }
        switch bytes[i] {
        case UInt8(ascii: "n"): return try expectWord("null", .null)
        case UInt8(ascii: "t"): return try expectWord("true", .bool(true))
        case UInt8(ascii: "f"): return try expectWord("false", .bool(false))
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "["):
            i += 1
            var items: [AnyValue] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                items.append(try parseValue(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("unterminated array") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw fail("expected , or ] in array")
            }
        case UInt8(ascii: "{"):
            i += 1
            var builder = OrderedObject.Builder()
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(builder.object) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected object key") }
                let key = try parseString()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected : in object") }
                i += 1
                builder.set(key, try parseValue(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("unterminated object") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(builder.object) }
                throw fail("expected , or } in object")
            }
        default: return try parseNumber()
        }
    }

    mutating func parseNumber() throws(AccordError) -> AnyValue {
        let start = i
        var isInteger = true
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        let digitsStart = i
        while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
        guard i > digitsStart else { throw fail("invalid number") }
        if bytes[digitsStart] == 0x30, i - digitsStart > 1 { throw fail("leading zero in number") }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            let fracStart = i
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
            guard i > fracStart else { throw fail("invalid fraction") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            isInteger = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            let expStart = i
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
            guard i > expStart else { throw fail("invalid exponent") }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        if isInteger, let n = Int64(text), n.magnitude <= 9_007_199_254_740_991 { return .int(n) }
        guard let d = Double(text) else { throw fail("invalid number") }
        return .number(d)
    }

    mutating func parseHex4() throws(AccordError) -> UInt32 {
        guard i + 4 <= bytes.count else { throw fail("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[i]
            i += 1
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw fail("invalid \\u escape")
            }
            v = v << 4 | d
        }
        return v
    }

    mutating func parseString() throws(AccordError) -> String {
        i += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard i < bytes.count else { throw fail("unterminated string") }
            let c = bytes[i]
            i += 1
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { throw fail("control character in string") }
            if c != UInt8(ascii: "\\") { out.append(c); continue }
            guard i < bytes.count else { throw fail("unterminated escape") }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5c)
            case UInt8(ascii: "/"): out.append(0x2f)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0c)
            case UInt8(ascii: "n"): out.append(0x0a)
            case UInt8(ascii: "r"): out.append(0x0d)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar), i + 1 < bytes.count, bytes[i] == 0x5c, bytes[i + 1] == UInt8(ascii: "u") {
                    let save = i
                    i += 2
                    let low = try parseHex4()
                    if (0xDC00...0xDFFF).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else {
                        i = save
                    }
                }
                // A lone surrogate becomes U+FFFD, as JS encoders do on the wire.
                let u = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                out.append(contentsOf: Array(String(u).utf8))
            default: throw fail("invalid escape")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in string") }
        return s
    }
}
