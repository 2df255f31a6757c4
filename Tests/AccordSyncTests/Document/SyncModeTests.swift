import Testing
import AccordCRDT
import AccordStore
@testable import AccordSync

/// Each row of the table on ``SyncMode``.
@Suite struct SyncModeTests {
    typealias F = SyncFixture

    @Test func pushOnlySendsButNeverPulls() throws {
        var machine = DocumentSyncMachine(id: F.id, mode: .realtimePushOnly)
        let ready = machine.connectionReady(F.hello, unacknowledged: [F.update(1)], now: 0)
        #expect(!F.sendsStepOne(ready))
        #expect(F.sentSequences(ready) == [1])
        #expect(F.sentSequences(machine.localUpdateAppended(F.update(2), now: 1)) == [2])
        #expect(machine.received(.sync(.update([5])), now: 2).isEmpty)
        #expect(machine.received(.sync(.step2(update: [5])), now: 2).isEmpty)
        #expect(machine.received(.awareness([0]), now: 2).isEmpty)
        #expect(machine.received(.sync(.step1(stateVector: [0])), now: 2) == [.answerStepOne(stateVector: [0])])
        // Synced means: everything pushed is acked.
        #expect(F.emitted(machine.received(try F.ack(2), now: 3)) == [.synced])
    }

    @Test func syncOffKeepsTheConnectionAndExchangesNothing() throws {
        var machine = DocumentSyncMachine(id: F.id, mode: .realtimeSyncOff)
        var all = machine.connectionReady(F.hello, unacknowledged: [F.update(1)], now: 0)
        all += machine.localUpdateAppended(F.update(2), now: 1)
        all += machine.received(.sync(.step1(stateVector: [0])), now: 2)
        all += machine.received(.sync(.update([5])), now: 2)
        all += machine.received(.awareness([0]), now: 2)
        all += machine.syncRequested(now: 3)
        all += machine.tick(now: 60_000)
        #expect(all.isEmpty)
        #expect(machine.isConnected)
        #expect(machine.unacknowledged.map(\.sequence) == [1, 2])
    }

    @Test func manualSendsNothingUntilSyncIsRequested() throws {
        var machine = DocumentSyncMachine(id: F.id, mode: .manual)
        var quiet = machine.connectionReady(F.hello, unacknowledged: [F.update(1)], now: 0)
        quiet += machine.localUpdateAppended(F.update(2), now: 1)
        quiet += machine.received(.sync(.update([5])), now: 2)
        quiet += machine.tick(now: 60_000)
        #expect(quiet.isEmpty)
        let round = machine.syncRequested(now: 100)
        #expect(F.sendsStepOne(round))
        #expect(F.sentSequences(round) == [1, 2])
        #expect(machine.received(.sync(.step2(update: [6])), now: 110).first == .apply(update: [6]))
        #expect(F.emitted(machine.received(try F.ack(2), now: 120)) == [.synced])
        // Later edits wait for the next request again.
        #expect(machine.localUpdateAppended(F.update(3), now: 130).isEmpty)
    }

    @Test func manualSyncRequestedOfflineRunsOnConnect() {
        var machine = DocumentSyncMachine(id: F.id, mode: .manual)
        #expect(machine.syncRequested(now: 0).isEmpty)
        let ready = machine.connectionReady(F.hello, unacknowledged: [F.update(1)], now: 5)
        #expect(F.sendsStepOne(ready))
        #expect(F.sentSequences(ready) == [1])
        // Only once: the next connection is quiet again.
        _ = machine.connectionLost()
        #expect(machine.connectionReady(F.hello, unacknowledged: [F.update(1)], now: 9).isEmpty)
    }

    @Test func pollingRunsARoundEveryIntervalWithoutALiveStream() throws {
        var machine = DocumentSyncMachine(id: F.id, mode: .polling(interval: 500))
        let ready = machine.connectionReady(F.hello, unacknowledged: [], now: 0)
        #expect(F.sendsStepOne(ready))
        #expect(ready.last == .scheduleTick(at: 500))
        _ = machine.received(.sync(.step2(update: [0, 0])), now: 10)
        // Edits and the server's live updates wait for the next round.
        #expect(machine.localUpdateAppended(F.update(1), now: 20).isEmpty)
        #expect(machine.received(.sync(.update([5])), now: 30).isEmpty)
        #expect(machine.tick(now: 499).isEmpty)
        let round = machine.tick(now: 500)
        #expect(F.sendsStepOne(round))
        #expect(F.sentSequences(round) == [1])
        #expect(round.contains(.scheduleTick(at: 1_000)))
        // The default interval is 3 s.
        #expect(SyncMode.polling == .polling(interval: 3_000))
    }

    @Test func changingModeStartsTheNewModeAtOnce() throws {
        var machine = DocumentSyncMachine(id: F.id, mode: .manual)
        _ = machine.connectionReady(F.hello, unacknowledged: [F.update(1)], now: 0)
        #expect(machine.setMode(.manual, now: 1).isEmpty)
        let live = machine.setMode(.realtime, now: 2)
        #expect(F.sendsStepOne(live))
        #expect(F.sentSequences(live) == [1])
        // Switching off drops the pending handshake: no timeout, no step 2 taken.
        #expect(machine.setMode(.realtimeSyncOff, now: 3).isEmpty)
        #expect(machine.tick(now: 100_000).isEmpty)
        #expect(machine.received(.sync(.step2(update: [5])), now: 4).isEmpty)
        // Acks still count in any mode: the server stored the update.
        #expect(machine.received(try F.ack(1), now: 5) == [.acknowledge(through: 1)])
        // Offline, a mode change only records the mode.
        _ = machine.connectionLost()
        #expect(machine.setMode(.polling, now: 6).isEmpty)
        #expect(machine.mode == .polling)
    }
}
