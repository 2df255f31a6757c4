import Testing
@testable import AccordServer

/// Notices of one document that pass each other on the way from PostgreSQL are put back
/// in log order without reading the log; a gap that stays open, a notice without its
/// updates, or too many held ones fall back to a read.
@Suite struct HeldNoticesTests {
    func notice(_ first: UInt64, _ last: UInt64, mine: Bool = false, carried: Bool = true, at received: UInt64 = 0)
        -> HeldNotices.Notice
    {
        HeldNotices.Notice(
            first: first, last: last, fromThisNode: mine, updates: carried && !mine ? [[UInt8(truncatingIfNeeded: first)]] : nil, received: received)
    }

    @Test func noticesAheadWaitAndFollowInLogOrder() {
        var held = HeldNotices()
        // The room holds 1...4. Entries 8...9 and 7 (this node's own) come before 5...6.
        #expect(held.receive(notice(8, 9), through: 4) == .hold(startTimer: true))
        #expect(held.receive(notice(7, 7, mine: true), through: 4) == .hold(startTimer: false))
        #expect(held.next(after: 4) == nil, "5...6 has not come")
        #expect(held.receive(notice(5, 6), through: 4) == .apply)
        // Applied 5...6: the held ones follow, in order, then nothing.
        #expect(held.next(after: 6).map { [$0.first, $0.last] } == [7, 7])
        #expect(held.next(after: 7).map { [$0.first, $0.last] } == [8, 9])
        #expect(held.next(after: 9) == nil)
        #expect(held.isEmpty)
    }

    @Test func aReadPastHeldNoticesDropsThem() {
        var held = HeldNotices()
        #expect(held.receive(notice(3, 3), through: 1) == .hold(startTimer: true))
        #expect(held.receive(notice(6, 8), through: 1) == .hold(startTimer: false))
        // A read brought everything through 5: 3 is passed, 6...8 still follows.
        #expect(held.next(after: 5)?.first == 6)
        #expect(held.isEmpty)
        #expect(held.receive(notice(9, 9), through: 8) == .apply)
    }

    @Test func whatCannotWaitIsRead() {
        var held = HeldNotices()
        // Not carried (too large for the notice): only the log has it.
        #expect(held.receive(notice(2, 2, carried: false), through: 0) == .read)
        #expect(held.receive(notice(1, 1, carried: false), through: 0) == .read)
        // A timer that runs out drops what was held and says since when it waited.
        #expect(held.receive(notice(5, 5, at: 300), through: 0) == .hold(startTimer: true))
        #expect(held.receive(notice(3, 3, at: 200), through: 0) == .hold(startTimer: false))
        #expect(held.expire() == 200)
        #expect(held.isEmpty && held.expire() == nil)
        // At the limit, the next one makes the room read (and forget the held ones).
        for index in 0..<UInt64(HeldNotices.limit) { _ = held.receive(notice(10 + index, 10 + index), through: 0) }
        #expect(held.receive(notice(500, 500), through: 0) == .read)
        #expect(held.isEmpty)
    }
}
