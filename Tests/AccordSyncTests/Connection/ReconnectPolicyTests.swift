import Testing
import AccordTesting
@testable import AccordSync

@Suite struct ReconnectPolicyTests {
    @Test(arguments: 0..<16 as Range<UInt64>)
    func delaysGrowWithJitterWithinHalfAndWholeStepAndStayCapped(seed: UInt64) {
        var policy = ReconnectPolicy(initialDelay: 100, maxDelay: 5_000)
        var random = SplitMix64(seed: seed)
        var steps: [UInt64] = []
        for _ in 0..<12 {
            let step = policy.step
            steps.append(step)
            let delay = policy.nextDelay(using: &random)
            #expect(delay >= step / 2 && delay <= step, "seed \(seed)")
            #expect(delay <= 5_000, "seed \(seed)")
        }
        #expect(steps.prefix(7) == [100, 200, 400, 800, 1_600, 3_200, 5_000])
        #expect(steps.last == 5_000)
    }

    @Test func jitterComesFromTheInjectedSourceAndDiffersBetweenSeeds() {
        func delays(_ seed: UInt64) -> [UInt64] {
            var policy = ReconnectPolicy(initialDelay: 1_000, maxDelay: 60_000)
            var random = SplitMix64(seed: seed)
            return (0..<6).map { _ in policy.nextDelay(using: &random) }
        }
        #expect(delays(7) == delays(7))
        #expect(delays(7) != delays(8))
    }

    @Test func successResetsTheBackoff() {
        var policy = ReconnectPolicy(initialDelay: 100, maxDelay: 5_000)
        var random = SplitMix64(seed: 1)
        for _ in 0..<5 { _ = policy.nextDelay(using: &random) }
        #expect(policy.step == 3_200)
        policy.reset()
        #expect(policy.attempts == 0)
        #expect(policy.step == 100)
    }

    @Test func manyFailuresNeitherOverflowNorPassTheCap() {
        var policy = ReconnectPolicy(initialDelay: 1_000, maxDelay: 30_000)
        var random = SplitMix64(seed: 3)
        for _ in 0..<200 { #expect(policy.nextDelay(using: &random) <= 30_000) }
    }
}
