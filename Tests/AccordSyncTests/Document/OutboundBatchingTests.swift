import Testing
import AccordCRDT
import AccordStore
@testable import AccordSync

/// Unsent local updates go up merged, as few messages as the frame limit allows.
@Suite struct OutboundBatchingTests {
    typealias F = SyncFixture

    /// `count` real single-character updates of one client, sequences 1...count.
    private func keystrokes(_ count: Int) throws -> [OutboundUpdate] {
        let doc = Doc(clientID: 7)
        var updates: [OutboundUpdate] = []
        let subscription = doc.onUpdate { bytes, _ in
            updates.append(OutboundUpdate(sequence: UInt64(updates.count + 1), bytes: bytes))
        }
        for i in 0..<count { try doc.getText("t").insert(i, String(i % 10)) }
        subscription.cancel()
        return updates
    }

    /// The updates the sent frames carry, in order, with their sequences.
    private func sent(_ actions: [DocumentSyncAction]) throws -> [OutboundUpdate] {
        try actions.compactMap { action in
            guard case .send(let frame) = action, case .update(_, let sequence, let bytes) = try AccordMessage.decode(frame: frame)
            else { return nil }
            return OutboundUpdate(sequence: sequence, bytes: bytes)
        }
    }

    private func text(of updates: [OutboundUpdate]) throws -> String {
        let doc = Doc(clientID: 99)
        for update in updates { try doc.applyUpdate(update.bytes) }
        return try doc.getText("t").string
    }

    @Test func aBacklogGoesUpAsOneMergedMessageUnderItsLastSequence() throws {
        let backlog = try keystrokes(500)
        var machine = DocumentSyncMachine(id: F.id)
        let messages = try sent(machine.connectionReady(F.hello, unacknowledged: backlog, now: 0))
        #expect(messages.map(\.sequence) == [500])
        #expect(try text(of: messages) == text(of: backlog))
        #expect(messages[0].bytes.count < backlog.reduce(0) { $0 + $1.bytes.count })
        // Its ack acknowledges all of them.
        let acked = machine.received(try F.ack(500), now: 10)
        #expect(acked.first == .acknowledge(through: 500))
        #expect(machine.unacknowledged.isEmpty)
    }

    @Test func aSmallFrameLimitSplitsTheBacklogIntoMessagesThatFit() throws {
        let backlog = try keystrokes(300)
        let limit: UInt64 = 600
        var machine = DocumentSyncMachine(id: F.id)
        let hello = ServerHello(serverVersion: "test", maxFrameBytes: limit, heartbeatSeconds: 20)
        let messages = try sent(machine.connectionReady(hello, unacknowledged: backlog, now: 0))
        #expect(messages.count > 1 && messages.count < 300)
        #expect(messages.allSatisfy { $0.multiplexedSize(document: F.id) <= limit })
        #expect(messages.map(\.sequence) == messages.map(\.sequence).sorted())
        #expect(messages.last?.sequence == 300)
        #expect(try text(of: messages) == text(of: backlog))
        #expect(machine.parked == nil)
    }

    @Test func updatesOfOneCommitAreSentTogether() throws {
        let updates = try keystrokes(3)
        var machine = DocumentSyncMachine(id: F.id)
        _ = machine.connectionReady(F.hello, unacknowledged: [], now: 0)
        let messages = try sent(machine.localUpdatesAppended(updates, now: 1))
        #expect(messages.map(\.sequence) == [3])
        #expect(try text(of: messages) == "012")
        // Already known updates are not sent again.
        #expect(machine.localUpdatesAppended(updates, now: 2).isEmpty)
    }

    @Test func updatesThatDoNotMergeAreSentOneByOne() {
        // Not Yjs updates: merging fails, and each goes as it is.
        let updates = [F.update(1), F.update(2)]
        #expect(OutboundUpdate.batched(updates, document: F.id, limit: nil) == updates)
        #expect(OutboundUpdate.batched([F.update(4)], document: F.id, limit: 1) == [F.update(4)])
    }
}
