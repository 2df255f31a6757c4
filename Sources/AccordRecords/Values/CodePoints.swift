/// String comparisons by Unicode code points, with no normalisation: the order SQLite's
/// BINARY collation gives UTF-8 text, so the SQL path and the in-memory path of a query
/// agree. Swift's own `==`, `<`, `hasPrefix` and `contains` use canonical equivalence
/// (`"é" == "e\u{301}"`), which SQLite does not, so records code never uses them on
/// values. UTF-8 byte order is code point order.
enum CodePoints {
    static func equal(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }

    static func less(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// -1, 0 or 1.
    static func compare(_ a: String, _ b: String) -> Int {
        less(a, b) ? -1 : (equal(a, b) ? 0 : 1)
    }

    static func hasPrefix(_ text: String, _ prefix: String) -> Bool {
        text.utf8.starts(with: prefix.utf8)
    }

    static func hasSuffix(_ text: String, _ suffix: String) -> Bool {
        text.utf8.reversed().starts(with: suffix.utf8.reversed())
    }

    /// Whether `needle` occurs in `text` as a run of code points ("" occurs everywhere).
    static func contains(_ text: String, _ needle: String) -> Bool {
        let haystack = Array(text.utf8)
        let pattern = Array(needle.utf8)
        guard !pattern.isEmpty else { return true }
        guard pattern.count <= haystack.count else { return false }
        // UTF-8 is self-synchronising: a byte match of whole sequences is a code point match.
        for start in 0...(haystack.count - pattern.count)
        where haystack[start] == pattern[0] && haystack[start..<(start + pattern.count)].elementsEqual(pattern) {
            return true
        }
        return false
    }
}
