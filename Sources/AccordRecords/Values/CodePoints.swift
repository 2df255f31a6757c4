import Foundation

/// String comparisons by Unicode code points, with no normalisation: the order SQLite's
/// BINARY collation gives UTF-8 text, so the SQL path and the in-memory path of a query
/// agree. Swift's own `==`, `<`, `hasPrefix` and `contains` use canonical equivalence
/// (`"é" == "e\u{301}"`), which SQLite does not, so records code never uses them on
/// values. UTF-8 byte order is code point order.
///
/// The comparisons read each string's contiguous UTF-8 at once (`memcmp`) rather than
/// walking the two `utf8` views element by element: sorting a batch of ids for the index
/// that way cost about 5,800 instructions per id (callgrind), with ``sorted(_:)`` about 1,000.
enum CodePoints {
    static func equal(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && compare(a, b) == 0
    }

    static func less(_ a: String, _ b: String) -> Bool {
        compare(a, b) < 0
    }

    /// -1, 0 or 1.
    static func compare(_ a: String, _ b: String) -> Int {
        let contiguous = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in compare(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) }
        }
        if let order = contiguous ?? nil { return order }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : (a.utf8.elementsEqual(b.utf8) ? 0 : 1)
    }

    /// -1, 0 or 1: byte order, a prefix first.
    static func compare(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Int {
        let common = min(x.count, y.count)
        if common > 0, let left = x.baseAddress, let right = y.baseAddress {
            let order = memcmp(left, right, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
    }

    /// `strings` in code point order. Each string's first 16 bytes are read once into
    /// two integers that decide most comparisons (ids of one batch differ early: ULIDs of
    /// one millisecond within their first 16 characters); only strings whose first 16
    /// bytes are the same are compared whole. A sort with ``less(_:_:)`` throughout
    /// made about 32 comparisons per string, each reading both strings.
    static func sorted(_ strings: some Collection<String>) -> [String] {
        let texts = Array(strings)
        var keys: [(high: UInt64, low: UInt64, index: Int)] = []
        keys.reserveCapacity(texts.count)
        for (index, text) in texts.enumerated() {
            let prefix = leadingBytes(of: text)
            keys.append((prefix.high, prefix.low, index))
        }
        keys.sort { l, r in
            if l.high != r.high { return l.high < r.high }
            if l.low != r.low { return l.low < r.low }
            return less(texts[l.index], texts[r.index])
        }
        return keys.map { texts[$0.index] }
    }

    /// The first 16 bytes of `text`'s UTF-8 as two big-endian integers, zeros after its
    /// end: integer order is byte order, except that a string and the same string with
    /// trailing zero bytes tie (and are then compared whole).
    private static func leadingBytes(of text: String) -> (high: UInt64, low: UInt64) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var position = 0
        for byte in text.utf8 {
            if position < 8 {
                high |= UInt64(byte) << (56 - 8 * position)
            } else {
                low |= UInt64(byte) << (56 - 8 * (position - 8))
            }
            position += 1
            if position == 16 { break }
        }
        return (high, low)
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
