/// The outbound budgets of one server's connections, behind one lock: senders on any
/// thread admit bytes (`WebSocketConnection.send`), the service thread settles them as
/// they are written. One lock per server keeps the totals exact; both sides hold it
/// for a dictionary lookup and a few additions.
final class OutboundLedger: Sendable {
    private struct State {
        var budgets: [UInt64: OutboundBudget] = [:]
        var queuedBytes = 0
        var peakConnectionBytes = 0
        var slowConsumerCloses = 0
    }

    let limit: Int
    private let state = Locked(State())

    init(limit: Int) { self.limit = limit }

    /// A connection was established. Service thread.
    func open(_ connection: UInt64) {
        state.withLock { $0.budgets[connection] = OutboundBudget(limit: limit) }
    }

    /// The connection ended: whatever it still held (lws frees its buffer with the
    /// wsi) is no longer counted, and later sends are dropped. Service thread.
    func close(_ connection: UInt64) {
        state.withLock { state in
            guard let budget = state.budgets.removeValue(forKey: connection) else { return }
            state.queuedBytes -= budget.queuedBytes
        }
    }

    /// Nil when the connection is gone (the message is dropped). Any thread.
    func admit(_ connection: UInt64, bytes: Int) -> OutboundBudget.Admission? {
        state.withLock { state in
            guard var budget = state.budgets[connection] else { return nil }
            let admission = budget.admit(bytes)
            state.budgets[connection] = budget
            switch admission {
            case .admitted:
                state.queuedBytes += bytes
                state.peakConnectionBytes = max(state.peakConnectionBytes, budget.queuedBytes)
            case .refused(let first):
                if first { state.slowConsumerCloses += 1 }
            }
            return admission
        }
    }

    /// One of the connection's queued messages was written out or dropped. Service thread.
    func settle(_ connection: UInt64, bytes: Int, ticket: UInt64) {
        state.withLock { state in
            guard var budget = state.budgets[connection] else { return }
            let before = budget.queuedBytes
            budget.settle(bytes, ticket: ticket)
            state.budgets[connection] = budget
            state.queuedBytes -= before - budget.queuedBytes
        }
    }

    func isPending(_ connection: UInt64, ticket: UInt64) -> Bool {
        state.withLock { $0.budgets[connection]?.isPending(ticket) ?? false }
    }

    /// Queued and peak bytes of one open connection.
    func usage(of connection: UInt64) -> (now: Int, peak: Int) {
        state.withLock { state in
            let budget = state.budgets[connection]
            return (budget?.queuedBytes ?? 0, budget?.peakBytes ?? 0)
        }
    }

    var statistics: OutboundStatistics {
        state.withLock { state in
            OutboundStatistics(
                limit: limit, queuedBytes: state.queuedBytes, peakConnectionBytes: state.peakConnectionBytes,
                slowConsumerCloses: state.slowConsumerCloses)
        }
    }
}

/// What a server's connections hold in their outbound queues (`WebSocketServer.outbound`).
public struct OutboundStatistics: Hashable, Sendable {
    /// `maxQueuedBytes` of the server.
    public var limit: Int
    /// Bytes queued on every open connection together: admitted by `send`, not yet
    /// handed to the kernel.
    public var queuedBytes: Int
    /// The most any single connection ever had queued (at most `limit` plus one
    /// message larger than `limit`).
    public var peakConnectionBytes: Int
    /// Connections closed because their queue passed the limit.
    public var slowConsumerCloses: Int
}
