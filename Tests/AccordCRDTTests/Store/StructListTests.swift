import AccordTesting
import Testing

@testable import AccordCRDT

/// ``StructList`` (a gap buffer) against a plain array: random appends, inserts, range
/// removals and clock changes, clustered like real edits and scattered, compared after
/// every step, refs, clocks and clock searches alike.
/// `ACCORD_SEED=<n>` replays one seed.
@Suite struct StructListTests {
    static let seeds = FuzzSeeds(standard: 40, soak: 1_000)

    @Test func matchesArrayModel() {
        for seed in Self.seeds.seeds {
            var rng = SplitMix64(seed: seed)
            var list = StructList()
            var model: [ItemRef] = []
            var clocks: [UInt32] = []
            var next: ItemRef = 0
            var cursor = 0
            for step in 0..<2_000 {
                // Mostly edits near the previous one, sometimes a jump, as in a trace.
                if Int.random(in: 0..<10, using: &rng) == 0 || cursor > model.count {
                    cursor = Int.random(in: 0...model.count, using: &rng)
                } else {
                    cursor = max(0, min(model.count, cursor + Int.random(in: -3...3, using: &rng)))
                }
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<3:
                    list.append(next, clock: UInt32(next))
                    model.append(next)
                    clocks.append(UInt32(next))
                case 3..<7:
                    list.insert(next, clock: UInt32(next), at: cursor)
                    model.insert(next, at: cursor)
                    clocks.insert(UInt32(next), at: cursor)
                default:
                    guard !model.isEmpty else { continue }
                    let lo = min(cursor, model.count - 1)
                    let hi = min(model.count - 1, lo + Int.random(in: 0..<4, using: &rng))
                    list.removeSubrange(lo...hi)
                    model.removeSubrange(lo...hi)
                    clocks.removeSubrange(lo...hi)
                }
                next += 1
                if Int.random(in: 0..<20, using: &rng) == 0, !model.isEmpty {
                    let i = Int.random(in: 0..<model.count, using: &rng)
                    list.setClock(UInt32(next) + 7, at: i)
                    clocks[i] = UInt32(next) + 7
                }
                let listClocks = list.indices.map { list.clock(at: $0) }
                guard Array(list) == model, listClocks == clocks else {
                    Issue.record("seed \(seed), step \(step): \(Array(list)) != \(model); \(FuzzSeeds.replayHint(seed: seed, filter: "StructListTests"))")
                    return
                }
                // The search assumes ascending clocks, as a client's list has.
                if clocks == clocks.sorted() {
                    let probe = UInt32.random(in: 0...UInt32(next + 8), using: &rng)
                    let expected = clocks.lastIndex { $0 <= probe }
                    guard list.lastPosition(startingAtOrBefore: probe) == expected else {
                        Issue.record("seed \(seed), step \(step): search for \(probe) in \(clocks); \(FuzzSeeds.replayHint(seed: seed, filter: "StructListTests"))")
                        return
                    }
                }
            }
        }
    }

    @Test func searchFindsTheStructHoldingAClock() {
        var list = StructList()
        #expect(list.lastPosition(startingAtOrBefore: 0) == nil)
        for clock: UInt32 in [0, 3, 4, 10] { list.append(ItemRef(clock), clock: clock) }
        list.insert(99, clock: 7, at: 3)  // a split of the struct at 4, gap in the middle
        #expect(list.lastPosition(startingAtOrBefore: 0) == 0)
        #expect(list.lastPosition(startingAtOrBefore: 2) == 0)
        #expect(list.lastPosition(startingAtOrBefore: 6) == 2)
        #expect(list.lastPosition(startingAtOrBefore: 7) == 3)
        #expect(list.lastPosition(startingAtOrBefore: 9) == 3)
        #expect(list.lastPosition(startingAtOrBefore: 500) == 4)
    }

    /// The search looks in the part before the gap or the part after it: every probe,
    /// with the gap after each position of sorted lists of every small size.
    @Test func searchWithTheGapAnywhere() {
        for n in 1...24 {
            for at in 0..<n {
                var list = StructList()
                var clocks = (0..<n).map { UInt32($0 * 4) }
                for (i, c) in clocks.enumerated() { list.append(ItemRef(i), clock: c) }
                // A split of the struct at `at`, opening the gap after it.
                list.insert(-1, clock: clocks[at] + 2, at: at + 1)
                clocks.insert(clocks[at] + 2, at: at + 1)
                for probe in 0...UInt32(n * 4 + 2) {
                    let expected = clocks.lastIndex { $0 <= probe }
                    guard list.lastPosition(startingAtOrBefore: probe) == expected else {
                        Issue.record("n \(n), split at \(at), probe \(probe)")
                        return
                    }
                }
            }
        }
    }

    @Test func removingTheTailThenAppending() {
        var list = StructList()
        for i in 0..<100 { list.append(ItemRef(i), clock: UInt32(i)) }
        list.insert(-1, clock: 0, at: 50)     // opens a gap in the middle
        list.removeSubrange(60...100)  // drops the tail behind the gap
        list.removeSubrange(40...59)   // and the rest after the gap's start
        list.append(7, clock: 7)
        #expect(Array(list) == Array(0..<40).map(ItemRef.init) + [7])
    }
}
