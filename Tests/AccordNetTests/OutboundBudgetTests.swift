import Testing

@testable import AccordNet

/// The per-connection outbound limit as a rule, without sockets.
@Suite struct OutboundBudgetTests {
    @Test func admitsUpToTheLimitThenRefusesForGood() {
        var budget = OutboundBudget(limit: 100)
        #expect(budget.admit(60) == .admitted(ticket: 1))
        #expect(budget.admit(40) == .admitted(ticket: 2))
        #expect(budget.admit(1) == .refused(first: true))
        // Refused once, the connection is closing: even what would fit now is refused.
        budget.settle(60, ticket: 1)
        #expect(budget.admit(1) == .refused(first: false))
        #expect(budget.queuedBytes == 40)
        #expect(budget.peakBytes == 100)
    }

    @Test func oneMessageLargerThanTheLimitMayWaitBesidesTheLimit() {
        var budget = OutboundBudget(limit: 100)
        #expect(budget.admit(10) == .admitted(ticket: 1))
        #expect(budget.admit(5_000) == .admitted(ticket: 2))  // a big step 2: admitted
        #expect(budget.admit(90) == .admitted(ticket: 3))  // the limit still applies to the rest
        #expect(budget.queuedBytes == 5_100)
        #expect(budget.admit(1) == .refused(first: true))

        var other = OutboundBudget(limit: 100)
        #expect(other.admit(5_000) == .admitted(ticket: 1))
        #expect(other.admit(101) == .refused(first: true))  // a second big one must wait its turn: refused
    }

    @Test func settlingTheLargeMessageMakesRoomForAnother() {
        var budget = OutboundBudget(limit: 100)
        #expect(budget.admit(5_000) == .admitted(ticket: 1))
        #expect(budget.admit(50) == .admitted(ticket: 2))
        budget.settle(5_000, ticket: 1)
        #expect(budget.admit(7_000) == .admitted(ticket: 3))
        #expect(budget.queuedBytes == 7_050)
    }

    @Test func ticketsArePendingUntilSettledInOrder() {
        var budget = OutboundBudget(limit: 100)
        guard case .admitted(let first) = budget.admit(10), case .admitted(let second) = budget.admit(10) else {
            Issue.record("not admitted")
            return
        }
        #expect(budget.isPending(first) && budget.isPending(second))
        budget.settle(10, ticket: first)
        #expect(!budget.isPending(first))
        #expect(budget.isPending(second))
        budget.settle(10, ticket: second)
        #expect(!budget.isPending(second))
        #expect(!budget.isPending(0))
        #expect(budget.queuedBytes == 0)
    }

    /// A slow-consumer close discards the queue while the oldest message is still in
    /// lws' buffer: the discarded ones are settled first.
    @Test func ticketsSettledOutOfOrderStayExact() {
        var budget = OutboundBudget(limit: 1_000)
        for _ in 0..<4 { _ = budget.admit(10) }
        budget.settle(10, ticket: 3)
        budget.settle(10, ticket: 2)
        #expect(budget.isPending(1) && !budget.isPending(2) && !budget.isPending(3) && budget.isPending(4))
        budget.settle(10, ticket: 1)
        #expect(!budget.isPending(1) && budget.isPending(4))
        budget.settle(10, ticket: 4)
        #expect((1...4).allSatisfy { !budget.isPending($0) })
        #expect(budget.queuedBytes == 0)
    }
}
