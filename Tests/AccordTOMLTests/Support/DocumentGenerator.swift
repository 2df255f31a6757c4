import AccordTesting

/// Random valid TOML documents for the differential tests: every value type in its
/// various spellings, nested and dotted tables, inline tables, arrays of tables, quoted
/// keys with escapes and non-ASCII. Names get a counter so that no key or table is ever
/// defined twice (the invalid cases are hand-written in TOMLInvalidTests).
struct DocumentGenerator {
    var rng: SplitMix64
    private var counter = 0

    init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    mutating func document() -> String {
        var out = ""
        if rng.chance(0.5) { out += "# generated document\n" }
        out += pairs(count: int(0...5), depth: 0)
        for _ in 0..<int(0...5) {
            switch int(0...2) {
            case 0:
                let name = key()
                out += "\n[\(name)]\(comment())\n" + pairs(count: int(0...4), depth: 0)
                if rng.chance(0.4) {
                    out += "[\(name) . \(key())]\n" + pairs(count: int(1...3), depth: 0)
                }
            case 1:
                let name = key()
                for _ in 0..<int(1...3) {
                    out += "[[\(name)]]\n" + pairs(count: int(0...3), depth: 0)
                    if rng.chance(0.3) { out += "[\(name).\(key())]\n" + pairs(count: int(1...2), depth: 0) }
                }
            default:
                // A deeper table first, then its parent defined afterwards (allowed).
                let parent = key()
                out += "[\(parent).\(key()).\(key())]\n" + pairs(count: int(0...2), depth: 0)
                out += "[\(parent)]\n" + pairs(count: int(0...2), depth: 0)
            }
        }
        return out
    }

    private mutating func pairs(count: Int, depth: Int) -> String {
        var out = ""
        for _ in 0..<count {
            var k = key()
            if rng.chance(0.2) { k += " . " + key() + "." + key() }
            out += (rng.chance(0.2) ? "  " : "") + k + (rng.chance(0.5) ? " = " : "=") + value(depth: depth) + comment() + "\n"
            if rng.chance(0.1) { out += "\n" }
        }
        return out
    }

    private mutating func comment() -> String {
        rng.chance(0.15) ? "  # note \(pick(["", "é", "🎉", "\t tab", "# hash"]))" : ""
    }

    /// A key that is unique in the document (the counter), bare or quoted.
    mutating func key() -> String {
        counter += 1
        switch int(0...9) {
        case 0...5: return pick(["k", "key", "a_b", "x-y", "Z9", "1234", "true", "inf", "-"]) + "\(counter)"
        case 6: return "\"" + basicText(maxLength: 6) + "\(counter)\""
        case 7: return "'" + literalText(maxLength: 6) + "\(counter)'"
        case 8: return "\"\(pick(["é", "e\u{301}", "日本", "🎉", " ", "."]))\(counter)\""
        default: return "'\(pick(["a.b", "[x]", "\"q\"", "#", "=", ""]))\(counter)'"
        }
    }

    mutating func value(depth: Int) -> String {
        let kinds = depth >= 3 ? 9 : 11
        switch int(0...kinds) {
        case 0, 1: return integer()
        case 2, 3: return float()
        case 4: return rng.chance(0.5) ? "true" : "false"
        case 5, 6: return string()
        case 7, 8: return dateTime()
        case 9: return string()
        case 10: return array(depth: depth + 1)
        default: return inlineTable(depth: depth + 1)
        }
    }

    private mutating func integer() -> String {
        switch int(0...5) {
        case 0: return String(Int64.random(in: .min ... .max, using: &rng))
        case 1: return pick(["0", "+0", "-0", "1_000", "+99", "-17", "5_349_221", "1_2_3_4", "9223372036854775807", "-9223372036854775808"])
        case 2: return "0x" + pick(["DEADBEEF", "dead_beef", "0", "00ff", "7FFFFFFFFFFFFFFF", "a_B_c"])
        case 3: return "0o" + pick(["0", "755", "01234567", "7_7"])
        case 4: return "0b" + pick(["0", "1", "1101_0101", "0001"])
        default: return String(Int.random(in: -1000...1000, using: &rng))
        }
    }

    private mutating func float() -> String {
        switch int(0...4) {
        case 0:
            let d = Double(bitPattern: rng.next())
            if d.isNaN { return "nan" }
            if d.isInfinite { return d < 0 ? "-inf" : "inf" }
            return d.description
        case 1: return pick(["inf", "+inf", "-inf", "nan", "+nan", "-nan", "0.0", "-0.0", "+0.0", "0e0", "-0e-0"])
        case 2: return pick(["1.5", "3.1415", "-0.01", "5e+22", "1e06", "-2E-2", "6.626e-34", "224_617.445_991_228", "1e1_0", "9_007_199_254_740_993.0"])
        case 3: return String(Double.random(in: -1e6...1e6, using: &rng))
        default: return "\(Int.random(in: 0...999, using: &rng)).\(Int.random(in: 0...999, using: &rng))e\(pick(["", "+", "-"]))\(Int.random(in: 0...300, using: &rng))"
        }
    }

    private mutating func string() -> String {
        switch int(0...3) {
        case 0: return "\"" + basicText(maxLength: 12) + "\""
        case 1: return "'" + literalText(maxLength: 12) + "'"
        case 2:
            var body = ""
            for _ in 0..<int(0...4) {
                body += pick(["", "\n"]) + basicText(maxLength: 8)
                    + pick(["\n", "\\\n   ", "\\  \n\n  ", "\"\"x", "\"x", "\r\n", "\t"])
            }
            return "\"\"\"" + body + pick(["", "\"", "\"\""]) + "\"\"\""
        default:
            var body = ""
            for _ in 0..<int(0...4) {
                body += pick(["", "\n"]) + literalText(maxLength: 8) + pick(["\n", "''x", "'x", "\\", "\"\"\"", "\r\n"])
            }
            return "'''" + body + pick(["", "'", "''"]) + "'''"
        }
    }

    /// Text for a basic string: plain characters, non-ASCII, and every escape.
    private mutating func basicText(maxLength: Int) -> String {
        var s = ""
        for _ in 0..<int(0...maxLength) {
            s += pick([
                "a", "Z", " ", "\t", "é", "e\u{301}", "日", "🎉", "'", "#", "=", "[", "{", ",",
                "\\n", "\\t", "\\\"", "\\\\", "\\b", "\\f", "\\r", "\\u00E9", "\\u0000", "\\u007F", "\\u001f",
                "\\U0001F600", "\\U0010FFFF", "\\uFFFD", "\\u0041",
            ])
        }
        return s
    }

    private mutating func literalText(maxLength: Int) -> String {
        var s = ""
        for _ in 0..<int(0...maxLength) {
            s += pick(["a", "Z", " ", "\t", "é", "日", "🎉", "\"", "\\", "\\n", "#", "=", "$"])
        }
        return s
    }

    private mutating func dateTime() -> String {
        let year = int(1...9999)
        let month = int(1...12)
        let days = [31, (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        let day = rng.chance(0.2) ? days : int(1...days)
        let date = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        var time = pad(int(0...23), 2) + ":" + pad(int(0...59), 2) + ":" + pad(int(0...59), 2)
        if rng.chance(0.4) { time += "." + String((0..<int(1...9)).map { _ in pick(Array("0123456789")) }) }
        switch int(0...3) {
        case 0: return date
        case 1: return time
        case 2: return date + pick(["T", "t", " "]) + time
        default:
            let offset = pick(["Z", "z", "+00:00", "-00:00", "+05:30", "-08:00", "+23:59", "-12:45"])
            return date + pick(["T", "t", " "]) + time + offset
        }
    }

    private mutating func array(depth: Int) -> String {
        let count = int(0...4)
        var parts: [String] = []
        for _ in 0..<count { parts.append(value(depth: depth)) }
        let multiline = rng.chance(0.3)
        let sep = multiline ? ",\n  # comment\n  " : pick([", ", ",", " , "])
        var body = parts.joined(separator: sep)
        if count > 0 && rng.chance(0.3) { body += "," }
        return multiline ? "[\n  " + body + "\n]" : "[" + body + "]"
    }

    private mutating func inlineTable(depth: Int) -> String {
        var parts: [String] = []
        let prefix = key()
        for i in 0..<int(0...4) {
            let k = rng.chance(0.3) ? prefix + "." + key() : (i == 0 && rng.chance(0.2) ? key() + "." + key() : key())
            parts.append(k + " = " + value(depth: depth))
        }
        return parts.isEmpty ? "{}" : "{ " + parts.joined(separator: ", ") + " }"
    }

    private func pad(_ v: Int, _ w: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, w - s.count)) + s
    }

    private mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    private mutating func pick<T>(_ options: [T]) -> T { options[int(0...(options.count - 1))] }
}
