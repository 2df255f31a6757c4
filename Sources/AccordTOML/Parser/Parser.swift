/// The TOML grammar over raw UTF-8 bytes.
///
/// The parser reads from an `UnsafeBufferPointer` that `TOML.parse` keeps alive for the
/// whole parse: every byte read is checked against `end` first (``peek(_:)`` answers 0
/// past the end, and a real NUL is refused as a control character wherever it occurs),
/// so no input can read out of bounds. Values are built straight into ``TableBuilder``,
/// which enforces the rules about defining tables and keys.
///
/// The grammar is split by concern: this file has the document structure (lines,
/// headers, key/value pairs) and the byte-level helpers; keys, strings, numbers,
/// dates and the two collection types have their own files.
struct Parser {
    static let maxDepth = 128

    let bytes: UnsafeBufferPointer<UInt8>
    let end: Int
    var pos = 0
    var lines = SourceLines()
    var builder = TableBuilder()
    /// Reused by string parsing so that strings with escapes allocate only their result.
    var scratch: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.end = bytes.count
    }

    // MARK: - Document

    mutating func parseDocument() throws(TOMLError) -> TOMLTable {
        if let bad = lines.scan(bytes) {
            throw error("invalid UTF-8 (byte 0x\(hex(bytes[bad])))", at: bad)
        }
        // A byte-order mark is not part of the TOML grammar, but editors write one and
        // tomllib's callers decode with utf-8-sig; accept it at the very start only.
        if end >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { pos = 3 }
        var current = TableBuilder.root
        var section = builder.newSection()
        while true {
            skipWhitespace()
            guard pos < end else { break }
            switch bytes[pos] {
            case UInt8(ascii: "\n"):
                pos += 1
            case UInt8(ascii: "\r"):
                try expectNewline()
            case UInt8(ascii: "#"):
                try skipComment()
            case UInt8(ascii: "["):
                current = try parseHeader()
                section = builder.newSection()
                try expectLineEnd(after: "table header")
            default:
                try parseKeyValue(into: current, section: section, depth: 0)
                try expectLineEnd(after: "value")
            }
        }
        return builder.table(TableBuilder.root)
    }

    /// `[a.b]` or `[[a.b]]`; returns the table that the following keys go into.
    mutating func parseHeader() throws(TOMLError) -> Int {
        let start = pos
        let isArray = peek(1) == UInt8(ascii: "[")
        pos += isArray ? 2 : 1
        skipWhitespace()
        let key = try parseKey()
        guard peek() == UInt8(ascii: "]") else {
            throw error("expected '\(isArray ? "]]" : "]")' to close table header, found \(describe(pos))")
        }
        pos += 1
        if isArray {
            guard peek() == UInt8(ascii: "]") else {
                throw error("expected ']]' to close array-of-tables header, found \(describe(pos))")
            }
            pos += 1
        }
        let position = position(of: start)
        if isArray {
            return try builder.appendArrayTable(key, at: position)
        }
        return try builder.defineTable(key, at: position)
    }

    /// `key = value` into table `table`. `depth` is the nesting of the enclosing inline
    /// tables and arrays.
    mutating func parseKeyValue(into table: Int, section: Int, depth: Int) throws(TOMLError) {
        let key = try parseKey()
        guard peek() == UInt8(ascii: "=") else {
            if pos >= end || peek() == UInt8(ascii: "\n") || peek() == UInt8(ascii: "\r") {
                throw error("expected '=' after key \(Key.display(key)), found \(describe(pos))")
            }
            throw error("expected '=' after key, found \(describe(pos))")
        }
        pos += 1
        skipWhitespace()
        let node = try builder.resolveForValue(key, in: table, section: section)
        let value = try parseValue(depth: depth)
        let last = key[key.count - 1]
        builder.insert(last.name, value, position: last.position, into: node)
    }

    /// After a value or header: spaces, an optional comment, then a newline or the end.
    mutating func expectLineEnd(after what: String) throws(TOMLError) {
        skipWhitespace()
        if peek() == UInt8(ascii: "#") { try skipComment() }
        guard pos < end else { return }
        if bytes[pos] == UInt8(ascii: "\n") || bytes[pos] == UInt8(ascii: "\r") {
            try expectNewline()
            return
        }
        throw error("expected a newline after \(what), found \(describe(pos))")
    }

    // MARK: - Bytes

    @inline(__always) func peek() -> UInt8 { pos < end ? bytes[pos] : 0 }
    @inline(__always) func peek(_ k: Int) -> UInt8 { pos + k < end ? bytes[pos + k] : 0 }

    /// Spaces and tabs.
    @inline(__always) mutating func skipWhitespace() {
        while pos < end, bytes[pos] == 0x20 || bytes[pos] == 0x09 { pos += 1 }
    }

    /// `\n` or `\r\n` at `pos`; a lone CR is not a newline in TOML.
    mutating func expectNewline() throws(TOMLError) {
        if peek() == UInt8(ascii: "\n") {
            pos += 1
        } else if peek() == UInt8(ascii: "\r") && peek(1) == UInt8(ascii: "\n") {
            pos += 2
        } else {
            throw error("carriage return must be followed by a newline")
        }
    }

    /// From `#` to the end of the line (the newline is left for the caller). Comments
    /// may hold any character but controls other than tab.
    mutating func skipComment() throws(TOMLError) {
        pos += 1
        while pos < end {
            let b = bytes[pos]
            if b == 0x0A { return }
            if b == 0x0D {
                if peek(1) == 0x0A { return }
                throw error("carriage return must be followed by a newline")
            }
            if (b < 0x20 && b != 0x09) || b == 0x7F {
                throw error("control character \(unicodeName(b)) not allowed in a comment")
            }
            pos += 1
        }
    }

    /// Whitespace, newlines and comments: what may sit between array elements.
    mutating func skipBlank() throws(TOMLError) {
        while pos < end {
            switch bytes[pos] {
            case 0x20, 0x09, 0x0A: pos += 1
            case 0x0D: try expectNewline()
            case UInt8(ascii: "#"): try skipComment()
            default: return
            }
        }
    }

    // MARK: - Errors

    mutating func position(of offset: Int) -> TOMLPosition {
        lines.position(of: offset, in: bytes)
    }

    mutating func error(_ message: String, at offset: Int? = nil) -> TOMLError {
        TOMLError(message, at: position(of: offset ?? pos))
    }

    /// "'x'", "a newline", "end of input": what the parser found at `offset`.
    func describe(_ offset: Int) -> String {
        guard offset < end else { return "end of input" }
        let b = bytes[offset]
        switch b {
        case 0x0A, 0x0D: return "a newline"
        case 0x09: return "a tab"
        case 0x20: return "a space"
        case 0..<0x20, 0x7F: return "control character \(unicodeName(b))"
        case 0x80...:
            var k = offset + 1
            while k < end, bytes[k] & 0xC0 == 0x80 { k += 1 }
            return "'" + String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<k]), as: UTF8.self) + "'"
        default: return "'\(Character(Unicode.Scalar(b)))'"
        }
    }

    func unicodeName(_ b: UInt8) -> String { "U+00" + hex(b) }

    func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(digits[Int(b >> 4)]) + String(digits[Int(b & 0xF)])
    }
}
