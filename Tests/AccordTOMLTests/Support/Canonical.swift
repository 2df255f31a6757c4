import AccordTOML

/// The canonical text of a parsed document that scripts/toml_reference.py prints for
/// tomllib's result (see there for the format): comparing strings compares values.
enum Canonical {
    static func text(_ table: TOMLTable) -> String {
        let sorted = table.entries.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
        return "{" + sorted.map { hex($0.key) + ":" + text($0.value) }.joined(separator: ",") + "}"
    }

    static func text(_ value: TOMLValue) -> String {
        switch value {
        case .table(let t): return text(t)
        case .array(let a): return "[" + a.map(text).joined(separator: ",") + "]"
        case .boolean(let b): return b ? "btrue" : "bfalse"
        case .integer(let i): return "i\(i)"
        case .float(let d):
            if d.isNaN { return "fnan" }
            let bits = String(d.bitPattern, radix: 16)
            return "f" + String(repeating: "0", count: 16 - bits.count) + bits
        case .string(let s): return "s" + hex(s)
        case .offsetDateTime(let d): return "odt" + dateTime(d) + "@\(d.offsetMinutes ?? 0)"
        case .localDateTime(let d): return "ldt" + dateTime(d)
        case .localDate(let d): return "ld" + date(d)
        case .localTime(let d): return "lt" + time(d)
        }
    }

    static func hex(_ s: String) -> String {
        s.utf8.map { b in String(b >> 4, radix: 16) + String(b & 0xF, radix: 16) }.joined()
    }

    private static func pad(_ v: Int?, _ w: Int) -> String {
        let s = String(v ?? 0)
        return String(repeating: "0", count: max(0, w - s.count)) + s
    }

    private static func date(_ d: TOMLDateTime) -> String {
        pad(d.year, 4) + "-" + pad(d.month, 2) + "-" + pad(d.day, 2)
    }

    /// Microseconds, as tomllib keeps them: the first six digits, zero-padded.
    private static func time(_ d: TOMLDateTime) -> String {
        let micro = String(d.fraction.prefix(6))
        return pad(d.hour, 2) + ":" + pad(d.minute, 2) + ":" + pad(d.second, 2) + "."
            + micro + String(repeating: "0", count: 6 - micro.count)
    }

    private static func dateTime(_ d: TOMLDateTime) -> String { date(d) + "T" + time(d) }
}
