/// Writes a ``TOMLTable`` as a TOML document.
///
/// Layout: each table's plain keys first (`key = value`), then its sub-tables as
/// `[a.b]` sections and its arrays of tables as `[[a.b]]` sections, so every key lands
/// under the header it belongs to. Arrays holding anything but tables, and tables
/// inside such arrays, are written inline. Strings are basic strings with escapes, so
/// any string (control characters included) survives; keys are bare where TOML allows.
struct TOMLEncoder {
    private(set) var output = ""

    mutating func encodeDocument(_ table: TOMLTable) {
        encodeBody(table, path: [])
    }

    private mutating func encodeBody(_ table: TOMLTable, path: [String]) {
        for entry in table.storage where !Self.isSection(entry.value) {
            output += Self.key(entry.key)
            output += " = "
            encodeInline(entry.value)
            output += "\n"
        }
        for entry in table.storage where Self.isSection(entry.value) {
            let sub = path + [entry.key]
            let header = sub.map(Self.key).joined(separator: ".")
            switch entry.value {
            case .table(let t):
                if !output.isEmpty { output += "\n" }
                output += "[" + header + "]\n"
                encodeBody(t, path: sub)
            case .array(let elements):
                for element in elements {
                    guard case .table(let t) = element else { continue }
                    if !output.isEmpty { output += "\n" }
                    output += "[[" + header + "]]\n"
                    encodeBody(t, path: sub)
                }
            default:
                break
            }
        }
    }

    /// Tables, and non-empty arrays of only tables, get their own `[header]` sections.
    private static func isSection(_ value: TOMLValue) -> Bool {
        switch value {
        case .table: return true
        case .array(let elements):
            return !elements.isEmpty && elements.allSatisfy { if case .table = $0 { true } else { false } }
        default: return false
        }
    }

    private mutating func encodeInline(_ value: TOMLValue) {
        switch value {
        case .string(let s): Self.appendQuoted(s, to: &output)
        case .integer(let i): output += String(i)
        case .float(let d): output += Self.float(d)
        case .boolean(let b): output += b ? "true" : "false"
        case .offsetDateTime(let d), .localDateTime(let d), .localDate(let d), .localTime(let d):
            output += d.text
        case .array(let elements):
            output += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { output += ", " }
                encodeInline(element)
            }
            output += "]"
        case .table(let t):
            guard !t.isEmpty else {
                output += "{}"
                return
            }
            output += "{ "
            for (i, entry) in t.storage.enumerated() {
                if i > 0 { output += ", " }
                output += Self.key(entry.key)
                output += " = "
                encodeInline(entry.value)
            }
            output += " }"
        }
    }

    /// Swift's shortest round-trip text, which is always a valid TOML float (`1.0`,
    /// `1e-05`, `1e+16`); the three specials spelled as TOML spells them.
    static func float(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        return d.description
    }

    static func key(_ name: String) -> String {
        if !name.isEmpty, name.utf8.allSatisfy(Key.isBare) { return name }
        var out = ""
        appendQuoted(name, to: &out)
        return out
    }

    static func appendQuoted(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\u{0C}": out += "\\f"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u" + String(scalar.value, radix: 16, uppercase: true).leftPadded(4)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
