/// One part of a dotted key, with where it was written.
struct KeyPart {
    var name: String
    var position: TOMLPosition
}

enum Key {
    static let maxParts = 128

    /// `a.b."c d"`: how a key is shown in messages, quoted where it is not bare.
    static func display(_ parts: [KeyPart]) -> String {
        parts.map { display($0.name) }.joined(separator: ".")
    }

    static func display(_ name: String) -> String {
        if !name.isEmpty, name.utf8.allSatisfy(isBare) { return name }
        var out = "\""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u00" + String(scalar.value, radix: 16, uppercase: true).leftPadded(2)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    @inline(__always) static func isBare(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}

extension String {
    func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

extension Parser {
    /// A bare, quoted or dotted key, with the whitespace after it skipped. The caller has
    /// skipped the whitespace before it.
    mutating func parseKey() throws(TOMLError) -> [KeyPart] {
        var parts: [KeyPart] = []
        while true {
            let start = pos
            let name: String
            switch peek() {
            case UInt8(ascii: "\""):
                if peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"") {
                    throw error("a multi-line string cannot be a key")
                }
                name = try parseBasicString()
            case UInt8(ascii: "'"):
                if peek(1) == UInt8(ascii: "'") && peek(2) == UInt8(ascii: "'") {
                    throw error("a multi-line string cannot be a key")
                }
                name = try parseLiteralString()
            default:
                while pos < end, Key.isBare(bytes[pos]) { pos += 1 }
                guard pos > start else {
                    throw error(parts.isEmpty ? "expected a key, found \(describe(pos))" : "expected a key after '.', found \(describe(pos))")
                }
                name = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
            }
            parts.append(KeyPart(name: name, position: position(of: start)))
            guard parts.count <= Key.maxParts else {
                throw error("key has more than \(Key.maxParts) parts", at: start)
            }
            skipWhitespace()
            guard peek() == UInt8(ascii: ".") else { return parts }
            pos += 1
            skipWhitespace()
        }
    }
}
