import Testing

@testable import AccordTesting

/// Fault decisions, without sockets.
@Suite struct MessageFaultsTests {
    @Test func certaintiesAndFixedDelays() {
        var generator = SplitMix64(seed: 1)
        let none = FaultProxy.MessageFaults.none
        let all = FaultProxy.MessageFaults(dropProbability: 1, duplicateProbability: 1, delay: .milliseconds(30))
        for _ in 0..<100 {
            #expect(none.roll(using: &generator) == .init(drop: false, duplicate: false, delay: .zero))
            #expect(all.roll(using: &generator) == .init(drop: true, duplicate: true, delay: .milliseconds(30)))
        }
    }

    @Test func rangesAndProbabilitiesFromTheSeed() {
        let faults = FaultProxy.MessageFaults(
            dropProbability: 0.25, duplicateProbability: 0.5, delay: .milliseconds(10) ... .milliseconds(20))
        func roll(seed: UInt64) -> [FaultProxy.Fate] {
            var generator = SplitMix64(seed: seed)
            return (0..<4000).map { _ in faults.roll(using: &generator) }
        }
        let fates = roll(seed: 5)
        #expect(fates == roll(seed: 5))
        #expect(fates != roll(seed: 6))
        #expect(fates.allSatisfy { (.milliseconds(10) ... .milliseconds(20)).contains($0.delay) })
        #expect(Set(fates.map(\.delay)).count > 1000)
        #expect((800...1200).contains(fates.count(where: \.drop)))
        #expect((1700...2300).contains(fates.count(where: \.duplicate)))
    }
}
