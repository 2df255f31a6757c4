/// Appends of one room that are not durable yet, in store order, with the client acks
/// that wait for them and when they were appended (for the persist-latency metric).
struct AckTracker {
    private struct Entry {
        var storeSequence: UInt64
        var ack: PendingAck?
        var appendedAt: UInt64
    }

    private var entries: [Entry] = []
    private var head = 0

    var isEmpty: Bool { head == entries.count }
    /// Appends not yet durable (each holds back its client's ack).
    var pendingCount: Int { entries.count - head }

    mutating func record(storeSequence: UInt64, ack: PendingAck?, now: UInt64) {
        entries.append(Entry(storeSequence: storeSequence, ack: ack, appendedAt: now))
    }

    /// Releases every entry at or below `storeSequence`: the highest client sequence per
    /// connection (acks are cumulative, so one ack per connection is enough) in the order
    /// the connections were first seen, and each entry's latency in milliseconds.
    mutating func release(through storeSequence: UInt64, now: UInt64) -> (acks: [PendingAck], latencies: [UInt64]) {
        var acks: [PendingAck] = []
        var latencies: [UInt64] = []
        while head < entries.count, entries[head].storeSequence <= storeSequence {
            let entry = entries[head]
            head += 1
            latencies.append(now >= entry.appendedAt ? now - entry.appendedAt : 0)
            guard let ack = entry.ack else { continue }
            if let index = acks.firstIndex(where: { $0.connection == ack.connection }) {
                acks[index].sequence = max(acks[index].sequence, ack.sequence)
            } else {
                acks.append(ack)
            }
        }
        if head > 64, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return (acks, latencies)
    }

    /// Forgets the acks owed to a connection that left; its updates stay tracked for latency.
    mutating func drop(_ connection: ConnectionID) {
        for index in head..<entries.count where entries[index].ack?.connection == connection {
            entries[index].ack = nil
        }
    }
}
