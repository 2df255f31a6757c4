import Testing
import AccordCRDT
import AccordStore
@testable import AccordSync

/// The per-document rules, driven by events with time passed in by hand.
@Suite struct DocumentSyncMachineTests {
    typealias F = SyncFixture

    @Test func readySendsStepOneThenEveryUnacknowledgedUpdateUnderItsStoreSequence() throws {
        var machine = DocumentSyncMachine(id: F.id, acknowledged: 3)
        let actions = machine.connectionReady(F.hello, unacknowledged: [F.update(4), F.update(5), F.update(9)], now: 0)
        #expect(actions.first == .sendStepOne)
        #expect(F.sentSequences(actions) == [4, 5, 9])
        guard case .send(let frame) = actions[1] else { Issue.record("no update frame"); return }
        #expect(try AccordMessage.decode(frame: frame) == .update(documentID: "notes", sequence: 4, bytes: F.update(4).bytes))
        #expect(actions.last == .scheduleTick(at: DocumentSyncMachine.defaultHandshakeBudget))
        #expect(machine.isBehind)
    }

    @Test func serverStepOneIsAnsweredByTheDriver() {
        var machine = DocumentSyncMachine(id: F.id)
        _ = machine.connectionReady(F.hello, unacknowledged: [], now: 0)
        #expect(machine.received(.sync(.step1(stateVector: [0])), now: 1) == [.answerStepOne(stateVector: [0])])
    }

    @Test func syncedOnlyOnceStepTwoArrivedAndEverythingIsAcked() throws {
        var machine = DocumentSyncMachine(id: F.id)
        _ = machine.connectionReady(F.hello, unacknowledged: [F.update(1), F.update(2)], now: 0)
        let step2 = machine.received(.sync(.step2(update: [9, 9])), now: 10)
        #expect(step2.first == .apply(update: [9, 9]))
        #expect(F.emitted(step2).isEmpty)
        let partial = machine.received(try F.ack(1), now: 20)
        #expect(partial.first == .acknowledge(through: 1))
        #expect(F.emitted(partial).isEmpty)
        let full = machine.received(try F.ack(2), now: 30)
        #expect(full.first == .acknowledge(through: 2))
        #expect(F.emitted(full) == [.synced])
        #expect(machine.isSynced && machine.unacknowledged.isEmpty)
        // A later local edit makes it stale; its ack brings `synced` once more.
        let sent = machine.localUpdateAppended(F.update(3), now: 40)
        #expect(F.sentSequences(sent) == [3])
        #expect(!machine.isSynced)
        #expect(F.emitted(machine.received(try F.ack(3), now: 50)) == [.synced])
    }

    @Test func emptyStepTwoIsNotAppliedButCompletesTheHandshake() {
        var machine = DocumentSyncMachine(id: F.id)
        _ = machine.connectionReady(F.hello, unacknowledged: [], now: 0)
        #expect(F.emitted(machine.received(.sync(.step2(update: [0, 0])), now: 5)) == [.synced])
        // An unasked step 2 (none awaited) is ignored.
        #expect(machine.received(.sync(.step2(update: [7])), now: 6).isEmpty)
    }

    @Test func acksAreCumulativeClampedAndNeverRepeated() throws {
        var machine = DocumentSyncMachine(id: F.id)
        _ = machine.connectionReady(F.hello, unacknowledged: [F.update(1), F.update(2), F.update(3)], now: 0)
        #expect(machine.received(try F.ack(7), now: 1).first == .acknowledge(through: 3))
        #expect(machine.received(try F.ack(2), now: 2).isEmpty)
        #expect(machine.acknowledged == 3)
    }

    @Test func handshakeTimeoutEmitsAnErrorAndRetriesWhileBehind() throws {
        var machine = DocumentSyncMachine(id: F.id, handshakeBudget: 1_000)
        _ = machine.connectionReady(F.hello, unacknowledged: [F.update(1)], now: 0)
        #expect(machine.tick(now: 999).isEmpty)
        let first = machine.tick(now: 1_000)
        guard case .syncError(let error)? = F.emitted(first).first else { Issue.record("no sync error"); return }
        #expect(error.code == .networkTimeout)
        #expect(error.details["document"] == "notes")
        // The retry asks again and resends what is unacknowledged.
        #expect(F.sendsStepOne(first))
        #expect(F.sentSequences(first) == [1])
        #expect(first.last == .scheduleTick(at: 2_000))
        // Repeated on each timeout while behind.
        #expect(F.emitted(machine.tick(now: 2_000)).count == 1)
        // Once answered, no more errors.
        _ = machine.received(.sync(.step2(update: [0, 0])), now: 2_100)
        _ = machine.received(.sync(.step2(update: [0, 0])), now: 2_100)
        #expect(F.emitted(machine.received(try F.ack(1), now: 2_200)) == [.synced])
        #expect(machine.tick(now: 10_000).isEmpty)
    }

    @Test func progressGivesTheHandshakeAFreshBudget() throws {
        var machine = DocumentSyncMachine(id: F.id, handshakeBudget: 1_000)
        _ = machine.connectionReady(F.hello, unacknowledged: [F.update(1), F.update(2)], now: 0)
        _ = machine.received(try F.ack(1), now: 900)
        #expect(F.emitted(machine.tick(now: 1_000)).isEmpty)
        #expect(F.emitted(machine.tick(now: 1_900)).count == 1)
    }

    @Test(arguments: ["PERMISSION_DENIED", "DOCUMENT_TOO_LARGE"])
    func refusedWritesParkTheDocument(code: String) throws {
        var machine = DocumentSyncMachine(id: F.id, handshakeBudget: 1_000)
        _ = machine.connectionReady(F.hello, unacknowledged: [F.update(1), F.update(2)], now: 0)
        let refused = machine.received(try F.error(code), now: 10)
        guard case .writeRejected(let error)? = F.emitted(refused).first else { Issue.record("no rejection"); return }
        #expect(error.code.rawValue == code)
        #expect(machine.parked == error)
        // The second refusal (the other update in flight) says nothing more.
        #expect(machine.received(try F.error(code), now: 11).isEmpty)
        // No resend loop: not on timeout, not on new edits, not after reconnecting.
        // Quiet, but not synced: the server does not have our changes.
        #expect(F.emitted(machine.received(.sync(.step2(update: [0, 0])), now: 20)).isEmpty)
        #expect(!machine.isSynced)
        #expect(machine.tick(now: 5_000).isEmpty)
        #expect(machine.localUpdateAppended(F.update(3), now: 30).isEmpty)
        #expect(machine.received(.sync(.step1(stateVector: [0])), now: 31).isEmpty)
        _ = machine.connectionLost()
        let again = machine.connectionReady(F.hello, unacknowledged: [F.update(1), F.update(2), F.update(3)], now: 100)
        #expect(F.sentSequences(again).isEmpty)
        #expect(F.sendsStepOne(again))
        // Remote changes still come in.
        #expect(machine.received(.sync(.update([4, 4])), now: 101) == [.apply(update: [4, 4])])
    }

    @Test func anUpdateOverTheServersFrameLimitParksInsteadOfBeingSent() {
        var machine = DocumentSyncMachine(id: F.id)
        let small = F.update(1)
        let big = OutboundUpdate(sequence: 2, bytes: Array(repeating: 7, count: 100))
        let limit = big.multiplexedSize(document: F.id) - 1
        let hello = ServerHello(serverVersion: "test", maxFrameBytes: limit, heartbeatSeconds: 20)
        let actions = machine.connectionReady(hello, unacknowledged: [small, big, F.update(3)], now: 0)
        #expect(F.sentSequences(actions) == [1])
        guard case .writeRejected(let error)? = F.emitted(actions).first else { Issue.record("no rejection"); return }
        #expect(error.code == WriteRefusal.messageTooLarge)
        #expect(error.details["sequence"] == "2")
        #expect(machine.parked == error)
        // One byte more and it fits.
        var roomy = DocumentSyncMachine(id: F.id)
        let fits = ServerHello(serverVersion: "test", maxFrameBytes: limit + 1, heartbeatSeconds: 20)
        #expect(F.sentSequences(roomy.connectionReady(fits, unacknowledged: [big], now: 0)) == [2])
    }

    @Test(arguments: [0, 1, 127, 128, 20_000] as [Int])
    func wireSizeIsTheEncodedSize(count: Int) throws {
        for sequence in [1, 127, 128, UInt64(1) << 40] as [UInt64] {
            let update = OutboundUpdate(sequence: sequence, bytes: Array(repeating: 1, count: count))
            let encoded = try MultiplexedFrame(.update(documentID: F.id.rawValue, sequence: sequence, bytes: update.bytes)).encode()
            #expect(update.multiplexedSize(document: F.id) == UInt64(encoded.count))
            let long = try DocumentID(validating: String(repeating: "é", count: 100))
            let encodedLong = try MultiplexedFrame(.update(documentID: long.rawValue, sequence: sequence, bytes: update.bytes)).encode()
            #expect(update.multiplexedSize(document: long) == UInt64(encodedLong.count))
        }
    }

    /// Among them the server's refusal of an awareness entry: presence trouble must
    /// never stop a document's writes.
    @Test(arguments: ["DOCUMENT_UNAVAILABLE", "AWARENESS_CLIENT_TAKEN", "RATE_LIMITED"])
    func otherServerErrorsAreReportedWithoutParking(code: String) throws {
        var machine = DocumentSyncMachine(id: F.id)
        _ = machine.connectionReady(F.hello, unacknowledged: [], now: 0)
        let actions = machine.received(try F.error(code), now: 1)
        guard case .serverError(let error)? = F.emitted(actions).first else { Issue.record("no error"); return }
        #expect(error.code.rawValue == code)
        #expect(machine.parked == nil)
    }

    @Test func reconnectResendsWhatWasNeverAckedAndKeepsLaterEdits() throws {
        var machine = DocumentSyncMachine(id: F.id)
        _ = machine.connectionReady(F.hello, unacknowledged: [F.update(1), F.update(2)], now: 0)
        _ = machine.received(try F.ack(1), now: 1)
        _ = machine.connectionLost()
        #expect(!machine.isConnected && !machine.isSynced)
        // Offline edits are kept, not sent.
        #expect(machine.localUpdateAppended(F.update(3), now: 2).isEmpty)
        #expect(machine.received(try F.ack(2), now: 3).isEmpty)
        // The store's list may lag behind what the machine heard: both are resent once.
        let actions = machine.connectionReady(F.hello, unacknowledged: [F.update(2)], now: 10)
        #expect(F.sentSequences(actions) == [2, 3])
        // Duplicates of what is already known are dropped.
        #expect(machine.localUpdateAppended(F.update(3), now: 11).isEmpty)
    }

    @Test func liveUpdatesAwarenessAndBroadcastAreDelivered() throws {
        var machine = DocumentSyncMachine(id: F.id)
        #expect(machine.received(.sync(.update([5])), now: 0).isEmpty)  // not connected
        _ = machine.connectionReady(F.hello, unacknowledged: [], now: 0)
        #expect(machine.received(.sync(.update([5])), now: 1) == [.apply(update: [5])])
        #expect(machine.received(.awareness([1, 0]), now: 1) == [.deliverAwareness([1, 0])])
        let broadcast = try AccordMessage.broadcast(documentID: "notes", topic: "t", payload: "{}", sender: "ada").frame()
        #expect(machine.received(broadcast, now: 1) == [.deliverBroadcast(topic: "t", payload: "{}", sender: "ada")])
        #expect(machine.received(.queryAwareness, now: 1).isEmpty)
    }

    @Test func localOnlyDocumentsNeverProduceAFrame() throws {
        var machine = DocumentSyncMachine(id: F.id, localOnly: true)
        var all = machine.connectionReady(F.hello, unacknowledged: [F.update(1)], now: 0)
        all += machine.localUpdateAppended(F.update(2), now: 1)
        all += machine.received(.sync(.step1(stateVector: [0])), now: 2)
        all += machine.syncRequested(now: 3)
        for mode in [SyncMode.realtime, .realtimePushOnly, .manual, .polling, .realtimeSyncOff] {
            all += machine.setMode(mode, now: 4)
        }
        all += machine.tick(now: 100_000)
        #expect(all.isEmpty)
        #expect(!machine.isConnected)
    }
}
