import AccordTesting
import Testing

@testable import AccordCRDT

/// ``CompactUpdate`` against the general decoder: on the per-transaction and full-state
/// updates of seeded random text editing (emoji included; local edits never cut a surrogate pair),
/// it holds the same structs and deletions, and it never accepts bytes the general
/// decoder plus ``Doc/validate(_:)`` reject (every truncation and some byte flips).
@Suite struct CompactUpdateTests {
    static let seeds = FuzzSeeds(standard: 12, soak: 400)

    @Test func agreesWithTheGeneralDecoder() throws {
        for seed in Self.seeds.seeds {
            for update in try Self.updates(seed: seed) {
                let decoded = try DecodedUpdate.decode(update)
                let compact = try #require(CompactUpdate(update), "seed \(seed): text-only update not compact")
                let structs = decoded.groups.first?.structs ?? []
                #expect(compact.entries.map { compact.updateStruct($0) } == structs, "seed \(seed)")
                var deletes = DeleteSet()
                for d in compact.deletes { deletes.add(client: d.client, clock: Int(d.clock), length: Int(d.length)) }
                #expect(deletes == decoded.deleteSet, "seed \(seed)")
            }
        }
    }

    /// One value decoding update after update (as a document reuses its buffers for
    /// small updates): a shorter update after a longer one leaves stale units past
    /// `unitCount` and fewer entries, and each decode still equals a fresh one.
    @Test func reusedBuffersDecodeLikeFreshOnes() throws {
        var reused = CompactUpdate()
        for seed in Self.seeds.seeds.prefix(4) {
            // Long and short updates interleaved, so the buffers shrink and grow.
            let updates = try Self.updates(seed: seed)
            for update in updates + updates.reversed() {
                let fresh = try #require(CompactUpdate(update))
                let decoded = reused.decode(update)
                #expect(decoded, "seed \(seed)")
                #expect(reused.unitCount == fresh.unitCount, "seed \(seed)")
                #expect(reused.entries.map { reused.updateStruct($0) } == fresh.entries.map { fresh.updateStruct($0) },
                        "seed \(seed)")
                #expect(Array(reused.deletes.map(\.clock)) == Array(fresh.deletes.map(\.clock)), "seed \(seed)")
            }
            // A malformed update in between is refused and does not spoil the next.
            let truncated = reused.decode(Array(updates[0].dropLast()))
            #expect(!truncated)
            let next = reused.decode(updates[1])
            #expect(next)
            let expected = try #require(CompactUpdate(updates[1]))
            #expect(reused.entries.map { reused.updateStruct($0) } == expected.entries.map { expected.updateStruct($0) })
        }
    }

    /// A document applying small updates one by one (its decode buffers reused, and an
    /// update applied from inside an update handler) ends like one that got them merged.
    @Test func documentReusingBuffersConverges() throws {
        for seed in Self.seeds.seeds.prefix(4) {
            let updates = try Self.updates(seed: seed).dropLast()
            let oneByOne = Doc(clientID: 999)
            // Applying each update again from inside the handler re-enters applyUpdate
            // while the buffers are lent out (a duplicate: it changes nothing).
            var echoes = 0
            let echo = oneByOne.onUpdate { [unowned oneByOne] bytes, origin in
                guard origin != "echo" else { return }
                echoes += 1
                try? oneByOne.applyUpdate(bytes, origin: "echo")
            }
            defer { echo.cancel() }
            for update in updates { try oneByOne.applyUpdate(update) }
            let merged = Doc(clientID: 997)
            try merged.applyUpdate(try mergeUpdates(Array(updates)))
            #expect(echoes == updates.count, "seed \(seed)")
            #expect(try oneByOne.getText("t").string == merged.getText("t").string, "seed \(seed)")
            #expect(oneByOne.encodeStateAsUpdate() == merged.encodeStateAsUpdate(), "seed \(seed)")
        }
    }

    @Test func acceptsNothingTheGeneralPathRejects() throws {
        for seed in Self.seeds.seeds.prefix(4) {
            var rng = SplitMix64(seed: seed &+ 1_000)
            for update in try Self.updates(seed: seed) {
                var variants = (0..<update.count).map { Array(update[..<$0]) }
                for _ in 0..<8 {
                    var flipped = update
                    flipped[Int.random(in: 0..<flipped.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                    variants.append(flipped)
                }
                for bytes in variants where CompactUpdate(bytes) != nil {
                    #expect(throws: Never.self, "seed \(seed): \(bytes)") {
                        try Doc.validate(try DecodedUpdate.decode(bytes))
                    }
                }
            }
        }
    }

    /// Updates of one writer typing, deleting and pasting, plus the final full state.
    static func updates(seed: UInt64) throws -> [[UInt8]] {
        var rng = SplitMix64(seed: seed)
        let doc = Doc(clientID: 1 + seed)
        let text = try doc.getText("t")
        var updates: [[UInt8]] = []
        let subscription = doc.onUpdate { bytes, _ in updates.append(bytes) }
        defer { subscription.cancel() }
        let pieces = ["a", "bc", "😀", "x😀y", "hello ", "é"]
        // Local edits refuse offsets inside a surrogate pair: every offset snaps left.
        func snapped(_ offset: Int) -> Int {
            let units = Array(text.string.utf16)
            return offset > 0 && offset < units.count && UTF16.isTrailSurrogate(units[offset]) ? offset - 1 : offset
        }
        for _ in 0..<60 {
            let length = text.length
            if length > 0, rng.chance(0.35) {
                let at = snapped(Int.random(in: 0..<length, using: &rng))
                let end = snapped(at + Int.random(in: 1...min(4, length - at), using: &rng))
                try text.delete(at, max(end - at, 0))
            } else {
                try text.insert(snapped(Int.random(in: 0...length, using: &rng)), pieces.randomElement(using: &rng) ?? "a")
            }
        }
        updates.append(doc.encodeStateAsUpdate())
        return updates
    }
}
