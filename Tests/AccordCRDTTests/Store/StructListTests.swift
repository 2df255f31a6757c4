import AccordTesting
import Testing

@testable import AccordCRDT

/// ``StructList`` (a gap buffer) against a plain array: random appends, inserts and
/// range removals, clustered like real edits and scattered, compared after every step.
/// `ACCORD_SEED=<n>` replays one seed.
@Suite struct StructListTests {
    static let seeds = FuzzSeeds(standard: 40, soak: 1_000)

    @Test func matchesArrayModel() {
        for seed in Self.seeds.seeds {
            var rng = SplitMix64(seed: seed)
            var list = StructList()
            var model: [ItemRef] = []
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
                    list.append(next)
                    model.append(next)
                case 3..<7:
                    list.insert(next, at: cursor)
                    model.insert(next, at: cursor)
                default:
                    guard !model.isEmpty else { continue }
                    let lo = min(cursor, model.count - 1)
                    let hi = min(model.count - 1, lo + Int.random(in: 0..<4, using: &rng))
                    list.removeSubrange(lo...hi)
                    model.removeSubrange(lo...hi)
                }
                next += 1
                if Int.random(in: 0..<20, using: &rng) == 0, !model.isEmpty {
                    let i = Int.random(in: 0..<model.count, using: &rng)
                    list[i] = -next
                    model[i] = -next
                }
                guard Array(list) == model else {
                    Issue.record("seed \(seed), step \(step): \(Array(list)) != \(model); \(FuzzSeeds.replayHint(seed: seed, filter: "StructListTests"))")
                    return
                }
            }
        }
    }

    @Test func removingTheTailThenAppending() {
        var list = StructList()
        for i in 0..<100 { list.append(ItemRef(i)) }
        list.insert(-1, at: 50)     // opens a gap in the middle
        list.removeSubrange(60...100)  // drops the tail behind the gap
        list.removeSubrange(40...59)   // and the rest after the gap's start
        list.append(7)
        #expect(Array(list) == Array(0..<40).map(ItemRef.init) + [7])
    }
}
