/// One client's struct refs in clock order: a gap buffer.
///
/// Splits and merges insert and remove refs in the middle of a client's list. In a plain
/// array each such edit moves the whole tail (a tenth of a keystroke's time on the
/// automerge-paper trace). Edits cluster, so here the free slots sit as a gap at the last
/// edit point and an edit moves only the refs between it and the previous one. Appends
/// (every new struct) go after the last element without moving the gap.
///
/// Layout of `storage`: `front` (logical `0..<gapStart`), the gap (`gapCount` unused
/// slots), then `back` (the rest, in order).
struct StructList: RandomAccessCollection {
    private var storage: ContiguousArray<ItemRef> = []
    private var gapStart = 0
    private var gapCount = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { storage.count - gapCount }

    subscript(position: Int) -> ItemRef {
        get { storage[physical(position)] }
        set { storage[physical(position)] = newValue }
    }

    @inline(__always)
    private func physical(_ i: Int) -> Int { i < gapStart ? i : i + gapCount }

    mutating func append(_ ref: ItemRef) {
        if gapCount > 0, gapStart == endIndex {
            // The gap is at the end: fill it rather than grow past it.
            storage[gapStart] = ref
            gapStart += 1
            gapCount -= 1
        } else {
            storage.append(ref)
        }
    }

    mutating func insert(_ ref: ItemRef, at i: Int) {
        precondition(i >= 0 && i <= endIndex, "insert position out of range")
        if i == endIndex {
            append(ref)
            return
        }
        moveGap(to: i)
        if gapCount == 0 {
            // Open a gap proportional to the size, so growing costs O(1) per insert amortized.
            let grow = Swift.max(16, storage.count >> 4)
            storage.insert(contentsOf: repeatElement(noItem, count: grow), at: gapStart)
            gapCount = grow
        }
        storage[gapStart] = ref
        gapStart += 1
        gapCount -= 1
    }

    mutating func removeSubrange(_ range: ClosedRange<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound < endIndex, "remove range out of range")
        let n = range.count
        if range.upperBound == endIndex - 1, gapStart <= range.lowerBound {
            // The tail of `back`: just drop it.
            storage.removeLast(n)
            if gapStart == endIndex { shrinkTrailingGap() }
            return
        }
        moveGap(to: range.upperBound + 1)
        gapStart -= n
        gapCount += n
    }

    /// A gap left at the very end is ordinary spare capacity: drop it, keeping `storage`'s
    /// capacity, so appends after it go straight to `storage`.
    private mutating func shrinkTrailingGap() {
        guard gapCount > 0 else { return }
        storage.removeLast(gapCount)
        gapCount = 0
    }

    /// Moves the gap so that it starts before logical index `i`.
    private mutating func moveGap(to i: Int) {
        guard i != gapStart else { return }
        guard gapCount > 0 else {
            gapStart = i
            return
        }
        let gap = gapCount
        let from = gapStart
        storage.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            if i < from {
                // front[i..<from] moves right, to just before `back`.
                (base + i + gap).update(from: base + i, count: from - i)
            } else {
                // back's first i - from elements move left, to the end of `front`.
                (base + from).update(from: base + from + gap, count: i - from)
            }
        }
        gapStart = i
    }
}
