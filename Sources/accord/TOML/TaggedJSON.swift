import AccordCRDT

/// A JSON value with object keys kept in order and compared by code points.
///
/// A small reader of its own rather than JSONSerialization: Foundation's objects key
/// by `String`, whose equality is canonical equivalence, so `"é"` and `"e\u{301}"`
/// would collapse into one key, and TOML keeps them apart.
enum JSONValue {
    struct Member {
        var key: String
        var value: JSONValue
    }

    case object([Member])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    /// Parses one JSON text (RFC 8259). Nesting is bounded like TOML's.
    static func parse(_ bytes: [UInt8]) throws(AccordError) -> JSONValue {
        var reader = JSONReader(bytes: bytes)
        guard String(decoding: bytes, as: UTF8.self).utf8.elementsEqual(bytes) else {
            throw reader.fail("input is not valid UTF-8")
        }
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.pos == bytes.count else { throw reader.fail("trailing characters after the JSON value") }
        return value
    }

    /// Compact JSON text.
    func write(to out: inout String) {
        switch self {
        case .object(let members):
            out += "{"
            for (i, member) in members.enumerated() {
                if i > 0 { out += "," }
                Self.writeString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .string(let s): Self.writeString(s, to: &out)
        case .number(let n): out += n
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        }
    }

    static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

private struct JSONReader {
    let bytes: [UInt8]
    var pos = 0

    func fail(_ message: String) -> AccordError {
        AccordError(.malformedJSON, "stdin: \(message) at byte \(pos)", details: ["input": "stdin"])
    }

    mutating func skipSpace() {
        while pos < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[pos]) { pos += 1 }
    }

    mutating func value(depth: Int) throws(AccordError) -> JSONValue {
        guard depth <= 512 else { throw fail("nested too deeply") }
        guard pos < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[pos] {
        case UInt8(ascii: "{"):
            pos += 1
            var members: [JSONValue.Member] = []
            skipSpace()
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {
                pos += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                let key = try string()
                skipSpace()
                guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                pos += 1
                skipSpace()
                members.append(JSONValue.Member(key: key, value: try value(depth: depth + 1)))
                skipSpace()
                guard pos < bytes.count else { throw fail("unterminated object") }
                if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
                if bytes[pos] == UInt8(ascii: "}") { pos += 1; return .object(members) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            pos += 1
            var items: [JSONValue] = []
            skipSpace()
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") {
                pos += 1
                return .array(items)
            }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard pos < bytes.count else { throw fail("unterminated array") }
                if bytes[pos] == UInt8(ascii: ",") { pos += 1; continue }
                if bytes[pos] == UInt8(ascii: "]") { pos += 1; return .array(items) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): return try word("true", .bool(true))
        case UInt8(ascii: "f"): return try word("false", .bool(false))
        case UInt8(ascii: "n"): return try word("null", .null)
        default:
            let start = pos
            while pos < bytes.count, "+-0123456789.eE".utf8.contains(bytes[pos]) { pos += 1 }
            guard pos > start else { throw fail("expected a JSON value") }
            return .number(String(decoding: bytes[start..<pos], as: UTF8.self))
        }
    }

    mutating func word(_ text: String, _ value: JSONValue) throws(AccordError) -> JSONValue {
        let w = Array(text.utf8)
        guard pos + w.count <= bytes.count, Array(bytes[pos..<(pos + w.count)]) == w else { throw fail("expected a JSON value") }
        pos += w.count
        return value
    }

    mutating func string() throws(AccordError) -> String {
        pos += 1
        var out: [UInt8] = []
        while pos < bytes.count {
            let b = bytes[pos]
            pos += 1
            if b == UInt8(ascii: "\"") { break }
            if b < 0x20 { throw fail("control character in string") }
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                continue
            }
            guard pos < bytes.count else { throw fail("unterminated string") }
            let e = bytes[pos]
            pos += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800..<0xDC00).contains(code) {
                    // A surrogate pair spells one scalar above U+FFFF.
                    guard pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") else {
                        throw fail("unpaired surrogate")
                    }
                    pos += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw fail("unpaired surrogate") }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default:
                throw fail("invalid escape")
            }
        }
        // The whole input was checked as UTF-8 up front, and escapes add only scalars.
        return String(decoding: out, as: UTF8.self)
    }

    mutating func hex4() throws(AccordError) -> UInt32 {
        guard pos + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[pos..<(pos + 4)], as: UTF8.self), radix: 16) else {
            throw fail("expected four hex digits after \\u")
        }
        pos += 4
        return v
    }
}
