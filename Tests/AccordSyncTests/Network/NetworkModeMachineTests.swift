import Testing
import AccordTesting
@testable import AccordSync

@Suite struct NetworkModeMachineTests {
    private func events(_ actions: [NetworkModeAction]) -> [NetworkModeEvent] {
        actions.compactMap { if case .emit(let event) = $0 { event } else { nil } }
    }

    @Test func autoConnectsAndGoesOnlineWithOneEvent() {
        var machine = NetworkModeMachine()
        #expect(machine.mode == .auto && !machine.isOnline && machine.reason == nil)
        #expect(machine.start() == [.connect])
        #expect(machine.start().isEmpty)  // already connecting
        #expect(events(machine.connected()) == [NetworkModeEvent(mode: .auto, isOnline: true, reason: .connectivityRestored)])
        #expect(machine.isOnline)
    }

    @Test func lostConnectionReconnectsWithBackoffAndStaysAuto() {
        var machine = NetworkModeMachine(reconnect: ReconnectPolicy(initialDelay: 100, maxDelay: 1_000))
        var random = SplitMix64(seed: 11)
        _ = machine.start()
        _ = machine.connected()
        let lost = machine.connectionLost(now: 1_000, random: &random)
        #expect(events(lost) == [NetworkModeEvent(mode: .auto, isOnline: false, reason: .connectivityLost)])
        guard case .scheduleReconnect(let at)? = lost.last else { Issue.record("no reconnect"); return }
        #expect(at >= 1_050 && at <= 1_100)
        #expect(machine.mode == .auto)
        #expect(machine.tick(now: at - 1).isEmpty)
        #expect(machine.tick(now: at) == [.connect])
        // A failed attempt backs off further and says nothing.
        let failed = machine.connectionLost(now: at + 5, random: &random)
        #expect(events(failed).isEmpty)
        guard case .scheduleReconnect(let next)? = failed.last else { Issue.record("no reconnect"); return }
        #expect(next >= at + 5 + 100 && next <= at + 5 + 200)
        // Success resets the backoff.
        _ = machine.tick(now: next)
        #expect(events(machine.connected()).count == 1)
        #expect(machine.reconnect.attempts == 0)
    }

    @Test func goOfflinePinsAndDisconnectsWithOneUserSetEvent() {
        var machine = NetworkModeMachine()
        var random = SplitMix64(seed: 1)
        _ = machine.start()
        _ = machine.connected()
        let offline = machine.goOffline()
        #expect(offline.first == .disconnect)
        #expect(events(offline) == [NetworkModeEvent(mode: .offline, isOnline: false, reason: .userSet)])
        #expect(machine.reason == .userSet)
        // Pinned: no reconnect, no repeated event, a late connection is closed.
        #expect(machine.goOffline().isEmpty)
        #expect(machine.connectionLost(now: 0, random: &random).isEmpty)
        #expect(machine.tick(now: 1_000_000).isEmpty)
        #expect(machine.connected() == [.disconnect])
        #expect(!machine.isOnline)
    }

    @Test func goOnlineAndBackToAutoAreTransitionsToo() {
        var machine = NetworkModeMachine()
        _ = machine.goOffline()
        let online = machine.goOnline()
        #expect(events(online) == [NetworkModeEvent(mode: .online, isOnline: false, reason: .userSet)])
        #expect(online.last == .connect)
        #expect(events(machine.connected()) == [NetworkModeEvent(mode: .online, isOnline: true, reason: .connectivityRestored)])
        #expect(machine.goOnline().isEmpty)
        #expect(events(machine.useAutomaticMode()) == [NetworkModeEvent(mode: .auto, isOnline: true, reason: .userSet)])
        #expect(machine.useAutomaticMode().isEmpty)
    }

    @Test func reasonsUseTheSharedWireStrings() {
        #expect(NetworkModeReason.userSet.rawValue == "user_set")
        #expect(NetworkModeReason.connectivityLost.rawValue == "connectivityLost")
        #expect(NetworkModeReason.connectivityRestored.rawValue == "connectivityRestored")
    }
}
