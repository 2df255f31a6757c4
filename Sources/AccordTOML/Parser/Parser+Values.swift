/// Which value starts here, decided by its first byte or two, and the two collection
/// types (arrays and inline tables), which recurse into values.
extension Parser {
    /// A value at `pos`. `depth` counts the arrays and inline tables around it; beyond
    /// ``Parser/maxDepth`` the parser refuses instead of recursing further, so no input
    /// can exhaust the stack.
    mutating func parseValue(depth: Int) throws(TOMLError) -> TOMLValue {
        let b = peek()
        switch b {
        case UInt8(ascii: "\""):
            if peek(1) == b && peek(2) == b { return .string(try parseMultilineBasicString()) }
            return .string(try parseBasicString())
        case UInt8(ascii: "'"):
            if peek(1) == b && peek(2) == b { return .string(try parseMultilineLiteralString()) }
            return .string(try parseLiteralString())
        case UInt8(ascii: "["):
            return try parseArray(depth: depth + 1)
        case UInt8(ascii: "{"):
            return try parseInlineTable(depth: depth + 1)
        case UInt8(ascii: "t"):
            try expectWord("true")
            return .boolean(true)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return .boolean(false)
        case UInt8(ascii: "i"), UInt8(ascii: "n"):
            return .float(try parseSpecialFloat())
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let next = peek(1)
            if next == UInt8(ascii: "i") || next == UInt8(ascii: "n") { return .float(try parseSpecialFloat()) }
            return try parseNumber()
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            if looksLikeDateOrTime() { return try parseDateTime() }
            return try parseNumber()
        default:
            if pos >= end || b == 0x0A || b == 0x0D || b == UInt8(ascii: "#") {
                throw error("expected a value, found \(describe(pos))")
            }
            throw error("expected a value (string, number, boolean, date, array or inline table), found \(describe(pos))")
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(TOMLError) {
        let start = pos
        let n = word.utf8CodeUnitCount
        var ok = pos + n <= end
        if ok {
            word.withUTF8Buffer { w in
                for k in 0..<n where bytes[start + k] != w[k] { ok = false }
            }
        }
        if ok && pos + n < end && Key.isBare(bytes[pos + n]) { ok = false }
        guard ok else { throw error("expected a value, found \(describeWord(start))", at: start) }
        pos += n
    }

    /// The bare word at `offset`, for messages about misspelt values (`tru`, `nan2`).
    func describeWord(_ offset: Int) -> String {
        var k = offset
        while k < end, Key.isBare(bytes[k]) || bytes[k] == UInt8(ascii: "+") || bytes[k] == UInt8(ascii: ".") { k += 1 }
        guard k > offset else { return describe(offset) }
        return "'" + String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<k]), as: UTF8.self) + "'"
    }

    // MARK: - Arrays

    /// `[ v, v, ... ]`: newlines and comments allowed between elements, a trailing comma
    /// allowed, and any mix of value types (TOML 1.0).
    mutating func parseArray(depth: Int) throws(TOMLError) -> TOMLValue {
        guard depth <= Self.maxDepth else {
            throw error("arrays and inline tables nested deeper than \(Self.maxDepth) levels")
        }
        pos += 1
        var items: [TOMLValue] = []
        while true {
            try skipBlank()
            if peek() == UInt8(ascii: "]") {
                pos += 1
                return .array(items)
            }
            guard pos < end else { throw error("unterminated array: expected ']'") }
            items.append(try parseValue(depth: depth))
            try skipBlank()
            guard pos < end else { throw error("unterminated array: expected ']'") }
            switch peek() {
            case UInt8(ascii: ","):
                pos += 1
            case UInt8(ascii: "]"):
                pos += 1
                return .array(items)
            default:
                throw error("expected ',' or ']' after array element, found \(describe(pos))")
            }
        }
    }

    // MARK: - Inline tables

    /// `{ k = v, k = v }` on one line, with no trailing comma (TOML 1.0). Dotted keys
    /// inside build sub-tables, under the same rules as in the document; once the brace
    /// closes, the table is frozen.
    mutating func parseInlineTable(depth: Int) throws(TOMLError) -> TOMLValue {
        guard depth <= Self.maxDepth else {
            throw error("arrays and inline tables nested deeper than \(Self.maxDepth) levels")
        }
        let node = builder.beginInline(at: position(of: pos))
        let section = builder.newSection()
        pos += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            pos += 1
            return builder.finishInline(node)
        }
        while true {
            try checkInlineNewline()
            try parseKeyValue(into: node, section: section, depth: depth)
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                pos += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "}") {
                    throw error("trailing comma not allowed in an inline table")
                }
            case UInt8(ascii: "}"):
                pos += 1
                return builder.finishInline(node)
            default:
                try checkInlineNewline()
                throw error("expected ',' or '}' in inline table, found \(describe(pos))")
            }
        }
    }

    private mutating func checkInlineNewline() throws(TOMLError) {
        let b = peek()
        if b == 0x0A || b == 0x0D { throw error("newline not allowed in an inline table") }
        if b == UInt8(ascii: "#") { throw error("comment not allowed in an inline table") }
        if pos >= end { throw error("unterminated inline table: expected '}'") }
    }
}
