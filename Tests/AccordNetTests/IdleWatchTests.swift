import Testing

@testable import AccordNet

/// The idle rule with the time passed in.
@Suite struct IdleWatchTests {
    let start = ContinuousClock.now

    @Test func noPolicyNoWatch() {
        #expect(IdleWatch(policy: IdlePolicy(pingAfter: nil, hangUpAfter: nil), now: start) == nil)
    }

    @Test func silentPeerIsPingedThenDropped() throws {
        var watch = try #require(IdleWatch(policy: IdlePolicy(pingAfter: .seconds(1), hangUpAfter: .seconds(3)), now: start))
        #expect(watch.firstWait == .seconds(1))
        #expect(watch.check(at: start + .seconds(1)) == .ping(thenWait: .seconds(1)))
        #expect(watch.check(at: start + .seconds(2)) == .ping(thenWait: .seconds(1)))
        #expect(watch.check(at: start + .seconds(3)) == .hangUp)
    }

    @Test func hearingRestartsTheCounts() throws {
        var watch = try #require(IdleWatch(policy: IdlePolicy(pingAfter: .seconds(1), hangUpAfter: .seconds(3)), now: start))
        #expect(watch.check(at: start + .seconds(1)) == .ping(thenWait: .seconds(1)))
        watch.heard(at: start + .milliseconds(1500))  // the pong
        #expect(watch.check(at: start + .seconds(2)) == .wait(.milliseconds(500)))
        #expect(watch.check(at: start + .milliseconds(2500)) == .ping(thenWait: .seconds(1)))
        #expect(watch.check(at: start + .seconds(4)) == .ping(thenWait: .milliseconds(500)), "again while silent")
        #expect(watch.check(at: start + .milliseconds(4500)) == .hangUp)
    }

    @Test func hangUpOnlyNeverPings() throws {
        var watch = try #require(IdleWatch(policy: IdlePolicy(pingAfter: nil, hangUpAfter: .seconds(2)), now: start))
        #expect(watch.check(at: start + .seconds(1)) == .wait(.seconds(1)))
        #expect(watch.check(at: start + .seconds(2)) == .hangUp)
    }
}
