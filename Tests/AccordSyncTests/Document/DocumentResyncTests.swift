import Testing
import AccordCRDT
import AccordStore
@testable import AccordSync

/// Rounds a `realtime` document runs on its own: when the driver finds updates pending
/// for a missing predecessor, and every resync interval.
@Suite struct DocumentResyncTests {
    typealias F = SyncFixture

    /// Connected, first round answered, nothing outstanding.
    private func synced(resyncInterval: UInt64? = nil, mode: SyncMode = .realtime) -> DocumentSyncMachine {
        var machine = DocumentSyncMachine(id: F.id, mode: mode, resyncInterval: resyncInterval)
        _ = machine.connectionReady(F.hello, unacknowledged: [], now: 0)
        _ = machine.received(.sync(.step2(update: [0, 0])), now: 10)
        return machine
    }

    @Test func aMissingPredecessorStartsARoundOncePerEpisode() {
        var machine = synced()
        let asked = machine.predecessorsMissing(now: 100)
        #expect(asked.first == .sendStepOne)
        #expect(machine.isBehind)
        // The answer arrives and the gap is still there (the server lacks it too): no second round.
        _ = machine.received(.sync(.step2(update: [0, 0])), now: 150)
        #expect(machine.predecessorsMissing(now: 200).isEmpty)
        // Once the gap closed, a new one is asked about again.
        machine.predecessorsArrived()
        #expect(F.sendsStepOne(machine.predecessorsMissing(now: 300)))
    }

    @Test func aMissingPredecessorWaitsForAStepTwoAlreadyOnItsWay() {
        var machine = DocumentSyncMachine(id: F.id, resyncInterval: nil)
        _ = machine.connectionReady(F.hello, unacknowledged: [], now: 0)
        // Our first step 1 is unanswered: its step 2 may fill the gap.
        #expect(machine.predecessorsMissing(now: 5).isEmpty)
        _ = machine.received(.sync(.step2(update: [0, 0])), now: 10)
        #expect(F.sendsStepOne(machine.predecessorsMissing(now: 20)))
    }

    @Test func onlyALiveRealtimeConnectionAsksForAMissingPredecessor() {
        var offline = DocumentSyncMachine(id: F.id)
        #expect(offline.predecessorsMissing(now: 0).isEmpty)
        // Push-only takes nothing from the server; polling catches up at its next round.
        for mode in [SyncMode.realtimePushOnly, .polling(interval: 5_000)] {
            var machine = synced(mode: mode)
            #expect(!F.sendsStepOne(machine.predecessorsMissing(now: 100)), "\(mode)")
        }
        var lost = synced()
        _ = lost.connectionLost()
        #expect(lost.predecessorsMissing(now: 100).isEmpty)
    }

    @Test func aRealtimeDocumentResyncsEveryIntervalAfterAPhaseOfItsOwn() {
        // Longer than the handshake budget, so each timer shows in turn.
        let interval: UInt64 = 20_000
        let phase = DocumentSyncMachine.resyncPhase(F.id, interval: interval)
        #expect(phase <= interval / 2)
        var machine = DocumentSyncMachine(id: F.id, resyncInterval: interval)
        let ready = machine.connectionReady(F.hello, unacknowledged: [], now: 0)
        let answered = machine.received(.sync(.step2(update: [0, 0])), now: 10)
        // The handshake deadline is gone; the resync is the next wake-up.
        #expect(answered.last == .scheduleTick(at: interval + phase))
        #expect(ready.last == .scheduleTick(at: DocumentSyncMachine.defaultHandshakeBudget))
        #expect(machine.tick(now: interval + phase - 1).isEmpty)
        let first = machine.tick(now: interval + phase)
        #expect(first.first == .sendStepOne)
        // A round is a round: its step 2 brings `synced` again, and the next one is an interval on.
        #expect(F.emitted(machine.received(.sync(.step2(update: [0, 0])), now: interval + phase + 5)) == [.synced])
        #expect(F.sendsStepOne(machine.tick(now: 2 * interval + phase)))
    }

    @Test func aResyncIsSkippedWhileAStepTwoIsAwaited() {
        var machine = DocumentSyncMachine(id: F.id, handshakeBudget: 100_000, resyncInterval: 1_000)
        _ = machine.connectionReady(F.hello, unacknowledged: [], now: 0)
        // The first step 2 never came; the handshake budget, not the resync, deals with it.
        #expect(!F.sendsStepOne(machine.tick(now: 1_600)))
        #expect(machine.isBehind)
    }

    @Test func noResyncWithoutAnIntervalOrOutsideRealtime() {
        var never = synced(resyncInterval: nil)
        #expect(never.tick(now: 10_000_000).isEmpty)
        var pushOnly = synced(resyncInterval: 1_000, mode: .realtimePushOnly)
        #expect(!F.sendsStepOne(pushOnly.tick(now: 10_000)))
        // Changing the mode to realtime while connected starts the resync clock.
        var manual = synced(resyncInterval: 1_000, mode: .manual)
        _ = manual.setMode(.realtime, now: 20_000)
        _ = manual.received(.sync(.step2(update: [0, 0])), now: 20_010)
        #expect(F.sendsStepOne(manual.tick(now: 21_500)))
    }

    @Test func documentsOpenedTogetherResyncAtDifferentMoments() {
        let phases = Set((0..<20).map { DocumentSyncMachine.resyncPhase(DocumentID(stringLiteral: "doc-\($0)"), interval: 60_000) })
        #expect(phases.count == 20)
        #expect(phases.allSatisfy { $0 <= 30_000 })
    }
}
