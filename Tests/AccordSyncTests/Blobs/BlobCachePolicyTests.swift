import Testing
@testable import AccordSync

/// The download cache's eviction choice, apart from any I/O.
@Suite struct BlobCachePolicyTests {
    typealias Candidate = BlobCachePolicy.Candidate

    @Test func underTheCapNothingIsEvicted() {
        let stored = [Candidate(hash: "a", size: 10, lastUsed: 1), Candidate(hash: "b", size: 10, lastUsed: 2)]
        #expect(BlobCachePolicy.evictions(stored, keep: [], cap: 20).isEmpty)
    }

    @Test func leastRecentlyUsedGoFirstUntilUnderTheCap() {
        let stored = [
            Candidate(hash: "new", size: 10, lastUsed: 30), Candidate(hash: "old", size: 10, lastUsed: 10),
            Candidate(hash: "mid", size: 10, lastUsed: 20), Candidate(hash: "newest", size: 10, lastUsed: 40),
        ]
        #expect(BlobCachePolicy.evictions(stored, keep: [], cap: 25) == ["old", "mid"])
    }

    @Test func keptBlobsStayEvenAboveTheCap() {
        let stored = [
            Candidate(hash: "pinned", size: 50, lastUsed: 1), Candidate(hash: "unsent", size: 50, lastUsed: 2),
            Candidate(hash: "cached", size: 10, lastUsed: 3),
        ]
        // The kept ones alone pass the cap: everything else goes, they stay.
        #expect(BlobCachePolicy.evictions(stored, keep: ["pinned", "unsent"], cap: 60) == ["cached"])
    }

    @Test func randomCachesEndUnderTheCapOrWithOnlyKeptBlobs() {
        var seed: UInt64 = 0x5EED
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        for _ in 0..<300 {
            let stored = (0..<(1 + next(20))).map { Candidate(hash: "h\($0)", size: Int64(1 + next(100)), lastUsed: Int64(next(1000))) }
            let keep = Set(stored.filter { _ in next(4) == 0 }.map(\.hash))
            let cap = Int64(next(1000))
            let evicted = BlobCachePolicy.evictions(stored, keep: keep, cap: cap)
            #expect(keep.isDisjoint(with: evicted))
            let left = stored.filter { !evicted.contains($0.hash) }
            let total = left.reduce(Int64(0)) { $0 + $1.size }
            #expect(total <= cap || left.allSatisfy { keep.contains($0.hash) })
            // Nothing evicted that was used more recently than something evictable left.
            let newestEvicted = stored.filter { evicted.contains($0.hash) }.map(\.lastUsed).max() ?? -1
            #expect(left.filter { !keep.contains($0.hash) }.allSatisfy { $0.lastUsed >= newestEvicted })
        }
    }
}
