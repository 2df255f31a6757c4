/// One client's struct refs in clock order, each with the struct's first clock: a gap
/// buffer.
///
/// Splits and merges insert and remove refs in the middle of a client's list. In a plain
/// array each such edit moves the whole tail (a tenth of a keystroke's time on the
/// automerge-paper trace). Edits cluster, so here the free slots sit as a gap at the last
/// edit point and an edit moves only the refs between it and the previous one. Appends
/// (every new struct) go after the last element without moving the gap.
///
/// The clocks are kept beside the refs so that finding the struct holding a clock
/// searches this compact array alone: reading each probe's clock from ``Store/items``
/// missed the cache on nearly every step, a fifth of loading a document.
///
/// Layout of `storage`: `front` (logical `0..<gapStart`), the gap (`gapCount` unused
/// slots), then `back` (the rest, in order).
struct StructList: RandomAccessCollection {
    struct Entry {
        var ref: ItemRef
        var clock: UInt32
    }

    private var storage: ContiguousArray<Entry> = []
    private var gapStart = 0
    private var gapCount = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { storage.count - gapCount }

    subscript(position: Int) -> ItemRef { storage[physical(position)].ref }

    /// The first clock of the struct at `position`.
    func clock(at position: Int) -> UInt32 { storage[physical(position)].clock }

    /// Records that the struct at `position` now starts at `clock` (it took units from
    /// its left neighbour, which must have shrunk by as many).
    mutating func setClock(_ clock: UInt32, at position: Int) {
        storage[physical(position)].clock = clock
    }

    /// The position of the last struct starting at or before `clock`, or nil when
    /// there is none. With a gap-free list that struct holds `clock` if any does.
    func lastPosition(startingAtOrBefore clock: UInt32) -> Int? {
        let count = endIndex
        guard count > 0 else { return nil }
        return storage.withUnsafeBufferPointer { buffer -> Int? in
            // Search whichever of `front` and `back` holds the answer, each contiguous, so
            // that no probe translates around the gap. Physical indices below are within
            // `storage`: `back` is `gapEnd..<storage.count`, `count - gapStart` long.
            let gapEnd = gapStart + gapCount
            if gapStart < count, buffer[gapEnd].clock <= clock {
                return Self.last(in: buffer, from: gapEnd, count: count - gapStart, atOrBefore: clock) - gapCount
            }
            guard gapStart > 0, buffer[0].clock <= clock else { return nil }
            return Self.last(in: buffer, from: 0, count: gapStart, atOrBefore: clock)
        }
    }

    /// The index of the last of `buffer[start..<start+count]` (sorted, `count` > 0, the
    /// first at or before `clock`) that starts at or before `clock`. The answer stays in
    /// `base..<base+n` while `n` halves.
    @inline(__always)
    private static func last(in buffer: UnsafeBufferPointer<Entry>, from start: Int, count: Int,
                             atOrBefore clock: UInt32) -> Int {
        var base = start
        var n = count
        while n > 1 {
            let half = n >> 1
            if buffer[base + half].clock <= clock { base += half }
            n -= half
        }
        return base
    }

    @inline(__always)
    private func physical(_ i: Int) -> Int { i < gapStart ? i : i + gapCount }

    mutating func append(_ ref: ItemRef, clock: UInt32) {
        let entry = Entry(ref: ref, clock: clock)
        if gapCount > 0, gapStart == endIndex {
            // The gap is at the end: fill it rather than grow past it.
            storage[gapStart] = entry
            gapStart += 1
            gapCount -= 1
        } else {
            storage.append(entry)
        }
    }

    mutating func insert(_ ref: ItemRef, clock: UInt32, at i: Int) {
        precondition(i >= 0 && i <= endIndex, "insert position out of range")
        if i == endIndex {
            append(ref, clock: clock)
            return
        }
        moveGap(to: i)
        if gapCount == 0 {
            // Open a gap proportional to the size, so growing costs O(1) per insert amortized.
            let grow = Swift.max(16, storage.count >> 4)
            storage.insert(contentsOf: repeatElement(Entry(ref: noItem, clock: 0), count: grow), at: gapStart)
            gapCount = grow
        }
        storage[gapStart] = Entry(ref: ref, clock: clock)
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
