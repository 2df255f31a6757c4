/// The four kinds of TOML string. Each scans runs of plain bytes and copies them in one
/// go; only escapes and newlines are handled byte by byte. A string without escapes
/// is made straight from the input bytes (already validated as UTF-8).
extension Parser {
    /// `"..."`, `pos` at the opening quote.
    mutating func parseBasicString() throws(TOMLError) -> String {
        let open = pos
        pos += 1
        let start = pos
        // Fast path: no escapes.
        while pos < end {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                pos += 1
                return makeString(start, pos - 1)
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 && b != 0x09 || b == 0x7F { try throwControl(in: "string", opened: open) }
            pos += 1
        }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<pos]))
        while pos < end {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                pos += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if b == UInt8(ascii: "\\") {
                try parseEscape()
                continue
            }
            if b < 0x20 && b != 0x09 || b == 0x7F { try throwControl(in: "string", opened: open) }
            scratch.append(b)
            pos += 1
        }
        throw error("unterminated string: expected '\"' (string opened at \(position(of: open)))")
    }

    /// `'...'`, `pos` at the opening quote.
    mutating func parseLiteralString() throws(TOMLError) -> String {
        let open = pos
        pos += 1
        let start = pos
        while pos < end {
            let b = bytes[pos]
            if b == UInt8(ascii: "'") {
                pos += 1
                return makeString(start, pos - 1)
            }
            if b < 0x20 && b != 0x09 || b == 0x7F { try throwControl(in: "literal string", opened: open) }
            pos += 1
        }
        throw error("unterminated literal string: expected \"'\" (string opened at \(position(of: open)))")
    }

    /// `"""..."""`, `pos` at the first of the three quotes.
    mutating func parseMultilineBasicString() throws(TOMLError) -> String {
        let open = pos
        pos += 3
        try skipNewlineAfterOpening()
        scratch.removeAll(keepingCapacity: true)
        while pos < end {
            let b = bytes[pos]
            switch b {
            case UInt8(ascii: "\""):
                if let done = try closingQuotes(UInt8(ascii: "\"")) {
                    return done
                }
            case UInt8(ascii: "\\"):
                if isLineEndingBackslash() {
                    // Trim the backslash, the newline and all whitespace and newlines
                    // up to the next other character.
                    pos += 1
                    while pos < end {
                        let c = bytes[pos]
                        if c == 0x20 || c == 0x09 || c == 0x0A {
                            pos += 1
                        } else if c == 0x0D {
                            try expectNewline()
                        } else {
                            break
                        }
                    }
                } else {
                    try parseEscape()
                }
            case 0x0A:
                scratch.append(0x0A)
                pos += 1
            case 0x0D:
                // CRLF is kept as LF, as tomllib does; a lone CR is refused.
                try expectNewline()
                scratch.append(0x0A)
            default:
                if b < 0x20 && b != 0x09 || b == 0x7F { try throwControl(in: "multi-line string", opened: open) }
                scratch.append(b)
                pos += 1
            }
        }
        throw error("unterminated multi-line string: expected '\"\"\"' (string opened at \(position(of: open)))")
    }

    /// `'''...'''`, `pos` at the first of the three quotes.
    mutating func parseMultilineLiteralString() throws(TOMLError) -> String {
        let open = pos
        pos += 3
        try skipNewlineAfterOpening()
        scratch.removeAll(keepingCapacity: true)
        while pos < end {
            let b = bytes[pos]
            switch b {
            case UInt8(ascii: "'"):
                if let done = try closingQuotes(UInt8(ascii: "'")) {
                    return done
                }
            case 0x0A:
                scratch.append(0x0A)
                pos += 1
            case 0x0D:
                try expectNewline()
                scratch.append(0x0A)
            default:
                if b < 0x20 && b != 0x09 || b == 0x7F { try throwControl(in: "multi-line literal string", opened: open) }
                scratch.append(b)
                pos += 1
            }
        }
        throw error("unterminated multi-line literal string: expected \"'''\" (string opened at \(position(of: open)))")
    }

    /// A run of `quote`s inside a multi-line string: one or two are content; three end
    /// the string, and up to two more just before them are content (`""""a"""""`).
    /// Returns the finished string, or nil when the run was content.
    private mutating func closingQuotes(_ quote: UInt8) throws(TOMLError) -> String? {
        var run = 0
        while pos + run < end, bytes[pos + run] == quote { run += 1 }
        if run < 3 {
            for _ in 0..<run { scratch.append(quote) }
            pos += run
            return nil
        }
        guard run <= 5 else {
            throw error("too many quotes: a multi-line string may end with at most five", at: pos + 5)
        }
        for _ in 0..<(run - 3) { scratch.append(quote) }
        pos += run
        return String(decoding: scratch, as: UTF8.self)
    }

    /// A newline right after the opening delimiter is not part of the string.
    private mutating func skipNewlineAfterOpening() throws(TOMLError) {
        if peek() == 0x0A {
            pos += 1
        } else if peek() == 0x0D {
            try expectNewline()
        }
    }

    /// A backslash followed by optional spaces or tabs and then a newline.
    private func isLineEndingBackslash() -> Bool {
        var k = pos + 1
        while k < end, bytes[k] == 0x20 || bytes[k] == 0x09 { k += 1 }
        return k < end && (bytes[k] == 0x0A || (bytes[k] == 0x0D && k + 1 < end && bytes[k + 1] == 0x0A))
    }

    /// One escape sequence into `scratch`, `pos` at the backslash.
    private mutating func parseEscape() throws(TOMLError) {
        let start = pos
        let c = peek(1)
        pos += 2
        switch c {
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "u"): try parseUnicodeEscape(digits: 4, start: start)
        case UInt8(ascii: "U"): try parseUnicodeEscape(digits: 8, start: start)
        default:
            guard start + 1 < end else { throw error("unterminated escape at end of input", at: start) }
            throw error("invalid escape \\\(describeEscaped(start + 1))", at: start)
        }
    }

    private func describeEscaped(_ offset: Int) -> String {
        let b = bytes[offset]
        if b >= 0x21 && b < 0x7F { return String(Character(Unicode.Scalar(b))) }
        return "followed by " + describe(offset)
    }

    private mutating func parseUnicodeEscape(digits: Int, start: Int) throws(TOMLError) {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let d = Self.hexValue(peek()) else {
                throw error("invalid escape: \\\(digits == 4 ? "u" : "U") needs \(digits) hex digits", at: start)
            }
            value = value << 4 | UInt32(d)
            pos += 1
        }
        guard let scalar = Unicode.Scalar(value) else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
            throw error("invalid escape \(text): not a Unicode scalar value", at: start)
        }
        appendUTF8(scalar.value)
    }

    /// UTF-8 of a valid scalar (the caller checked it) into `scratch`.
    private mutating func appendUTF8(_ v: UInt32) {
        switch v {
        case 0..<0x80:
            scratch.append(UInt8(v))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | v >> 6))
            scratch.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | v >> 12))
            scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | v & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | v >> 18))
            scratch.append(UInt8(0x80 | v >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | v >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | v & 0x3F))
        }
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private func makeString(_ start: Int, _ stop: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<stop]), as: UTF8.self)
    }

    private mutating func throwControl(in kind: String, opened: Int) throws(TOMLError) -> Never {
        let b = bytes[pos]
        if b == 0x0A || b == 0x0D {
            throw error("unterminated \(kind): newline before the closing quote (string opened at \(position(of: opened)))")
        }
        throw error("control character \(unicodeName(b)) must be escaped in a \(kind)")
    }
}
