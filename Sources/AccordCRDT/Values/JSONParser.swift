/// A small recursive-descent JSON parser with a depth bound.
struct JSONParser {
    let bytes: [UInt8]
    var i = 0
    static let maxDepth = 64
    /// Refuse an object naming a key twice (`INVALID_ARGUMENT`) instead of keeping the
    /// last value: request bodies, where parsers disagree on which value wins.
    var refusesDuplicateKeys = false

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
                if refusesDuplicateKeys, builder.contains(key) {
                    throw AccordError(
                        .invalidArgument, "the key \"\(key)\" appears twice in one object", details: ["field": key])
                }
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
        // Most strings have no escapes: decode them straight from the input.
        var end = i
        while end < bytes.count, bytes[end] != 0x22, bytes[end] != 0x5C, bytes[end] >= 0x20 { end += 1 }
        if end < bytes.count, bytes[end] == 0x22 {
            let s = UTF8Text.string(bytes[i..<end])
            i = end + 1
            guard let s else { throw fail("invalid UTF-8 in string") }
            return s
        }
        var out: [UInt8] = Array(bytes[i..<end])
        i = end
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
        guard let s = UTF8Text.string(out) else { throw fail("invalid UTF-8 in string") }
        return s
    }
}
