/// Full Unicode case folding for `$containsText`: `"STRASSE"` contains `"ß"`, `"ΣΊΣΥΦΟΣ"`
/// contains `"σίσυφος"`. `lowercased()` alone is not enough (it leaves `ß` and maps
/// only one way). Each code point is folded as lowercase(uppercase(c)), repeated until
/// it no longer changes: uppercase expands `ß` to `SS` and `ﬁ` to `FI` and joins `ς` with
/// `σ`, lowercase brings everything to one case. The result is not normalised, so
/// composed and decomposed forms stay distinct, as in every other string comparison.
///
/// The same function serves the SQL path (registered with SQLite), so both paths fold
/// identically by construction.
enum CaseFolding {
    static func fold(_ text: String) -> String {
        // ASCII, the common case, folds to lowercase letter by letter.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        var folded = ""
        folded.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            folded += fold(scalar)
        }
        return folded
    }

    /// ``fold(_:)`` on UTF-8 bytes, for SQLite's per-row calls: ASCII text (most text)
    /// is folded byte by byte without making a `String`.
    static func fold(utf8 bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            return bytes.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
        }
        return Array(fold(String(decoding: bytes, as: UTF8.self)).utf8)
    }

    private static func fold(_ scalar: Unicode.Scalar) -> String {
        guard scalar.properties.changesWhenCaseMapped else { return String(scalar) }
        var current = String(scalar)
        for _ in 0..<3 {
            var next = ""
            for part in current.unicodeScalars {
                for upper in part.properties.uppercaseMapping.unicodeScalars {
                    next += upper.properties.lowercaseMapping
                }
            }
            if next.unicodeScalars.elementsEqual(current.unicodeScalars) { break }
            current = next
        }
        return current
    }
}
