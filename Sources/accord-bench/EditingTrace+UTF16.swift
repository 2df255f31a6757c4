/// Trace positions count Unicode code points; ``YText`` counts UTF-16 units. They
/// differ only after a character above U+FFFF (two units, one code point). None of the
/// shared traces has one, but a trace that does must still replay correctly.
extension EditingTrace {
    /// The transactions with positions and delete counts in UTF-16 units. Converted
    /// once, before any timing.
    static func utf16Positions(_ txns: [[TracePatch]]) -> [[TracePatch]] {
        let hasWide = txns.contains { txn in
            txn.contains { patch in patch.insert.unicodeScalars.contains { $0.value > 0xFFFF } }
        }
        guard hasWide else { return txns }
        var converter = WideCharacterPositions()
        return txns.map { txn in txn.map { converter.convert($0) } }
    }
}

/// The code-point positions of the characters above U+FFFF currently in the document,
/// sorted. Cheap when such characters are rare, which is the only case real traces show
/// (the same approach as bench_reference.py's UTF-8 conversion).
struct WideCharacterPositions {
    private var positions: [Int] = []

    /// Applies `patch` (code points) to the tracked document; returns it in UTF-16 units.
    mutating func convert(_ patch: TracePatch) -> TracePatch {
        let k = lowerBound(patch.position)
        var out = patch
        out.position = patch.position + k
        if patch.deleteCount > 0 {
            let j = lowerBound(patch.position + patch.deleteCount)
            out.deleteCount = patch.deleteCount + (j - k)
            positions.removeSubrange(k..<j)
            for i in k..<positions.count { positions[i] -= patch.deleteCount }
        }
        if !patch.insert.isEmpty {
            var inserted: [Int] = []
            var count = 0
            for scalar in patch.insert.unicodeScalars {
                if scalar.value > 0xFFFF { inserted.append(patch.position + count) }
                count += 1
            }
            for i in k..<positions.count { positions[i] += count }
            positions.insert(contentsOf: inserted, at: k)
        }
        return out
    }

    /// Index of the first tracked position at or after `p`.
    private func lowerBound(_ p: Int) -> Int {
        var lo = 0
        var hi = positions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if positions[mid] < p { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
