import Testing
@testable import AccordSync

@Suite struct HeartbeatMonitorTests {
    @Test func intervalComesFromHelloClampedWithADefault() {
        #expect(HeartbeatMonitor(heartbeatSeconds: 20, now: 0).interval == 20_000)
        #expect(HeartbeatMonitor(heartbeatSeconds: 5, now: 0).interval == 5_000)
        #expect(HeartbeatMonitor(heartbeatSeconds: nil, now: 0).interval == HeartbeatMonitor.defaultInterval)
        #expect(HeartbeatMonitor(heartbeatSeconds: 0, now: 0).interval == 20_000)
        #expect(HeartbeatMonitor(heartbeatSeconds: 100_000, now: 0).interval == HeartbeatMonitor.maximumInterval)
        #expect(HeartbeatMonitor(heartbeatSeconds: .max, now: 0).interval == HeartbeatMonitor.maximumInterval)
    }

    @Test func pingsOncePerSilentIntervalThenDeclaresDeadAfterThree() {
        var monitor = HeartbeatMonitor(heartbeatSeconds: 10, now: 0)
        #expect(monitor.nextDeadline == 10_000)
        #expect(monitor.tick(now: 9_999) == nil)
        #expect(monitor.tick(now: 10_000) == .ping)
        #expect(monitor.tick(now: 15_000) == nil)
        #expect(monitor.nextDeadline == 20_000)
        #expect(monitor.tick(now: 20_000) == .ping)
        #expect(monitor.tick(now: 29_999) == nil)
        #expect(monitor.tick(now: 30_000) == .dead)
    }

    @Test func anythingHeardKeepsTheConnectionAlive() {
        var monitor = HeartbeatMonitor(heartbeatSeconds: 10, now: 0)
        #expect(monitor.tick(now: 10_000) == .ping)
        monitor.heard(now: 12_000)  // the pong
        #expect(monitor.tick(now: 21_999) == nil)
        #expect(monitor.tick(now: 22_000) == .ping)
        monitor.heard(now: 25_000)
        #expect(monitor.tick(now: 50_000) == .ping)
        #expect(monitor.tick(now: 55_000) == .dead)
    }
}
