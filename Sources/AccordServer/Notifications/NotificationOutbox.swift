public import AccordCRDT
public import AccordStore
import Foundation

/// The durable queue of notifications waiting for the webhook, in the server's storage
/// (category `server.outbox`, key = a 20-digit sequence, so keys sort in the order
/// queued; value = the JSON of ``Entry``).
///
/// An entry is removed only once the webhook answered 2xx, so one that was in flight
/// when the server stopped is sent again after the restart, with the same idempotency
/// key: delivery is at least once, and exactly once in effect for a receiver that
/// ignores a key it has seen.
///
/// The outbox holds at most ``capacity`` entries (so without a webhook, or with one down
/// for long, it stays bounded): queuing past it drops the oldest, and an entry failing
/// ``maxAttempts`` times is dropped too. Both are counted (`/metrics`,
/// `accord_notifications_dropped_total`), never silent.
///
/// Thread safety: every method may be called from any thread (one lock; storage writes
/// happen under it so the rows and the memory agree).
public final class NotificationOutbox: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: every var is only touched under `lock`.
    static let category = StorageCategory("server.outbox")

    /// A notification with its delivery state.
    public struct Entry: Sendable, Hashable, Codable {
        public var notification: ServerNotification
        /// Failed attempts so far.
        public var attempts: Int
        /// Milliseconds since 1970: not sent again before this.
        public var nextAttemptAt: Int64
    }

    /// What `/metrics` shows.
    public struct Statistics: Sendable, Hashable {
        public var pending = 0
        public var queued = 0
        public var delivered = 0
        public var failedAttempts = 0
        public var dropped = 0
    }

    public let capacity: Int
    public let maxAttempts: Int
    private let storage: SerialStorage
    private let lock = NSLock()
    private var entries: [(key: String, entry: Entry)] = []
    private var nextSequence: UInt64 = 1
    private var statistics = Statistics()

    /// Loads the entries a previous run left. A row that does not decode is dropped
    /// (and counted) rather than stopping the server.
    public init(storage: SerialStorage, capacity: Int = 10_000, maxAttempts: Int = 25) throws(AccordError) {
        self.storage = storage
        self.capacity = max(1, capacity)
        self.maxAttempts = max(1, maxAttempts)
        let keys = try storage.withAdapter { try $0.keys(in: Self.category) }.sorted()
        var corrupt: [String] = []
        for key in keys {
            guard let bytes = try storage.withAdapter({ try $0.read(Self.category, key: key) }),
                let entry = try? JSONDecoder().decode(Entry.self, from: Data(bytes))
            else {
                corrupt.append(key)
                continue
            }
            entries.append((key, entry))
            if let sequence = UInt64(key) { nextSequence = max(nextSequence, sequence + 1) }
        }
        if !corrupt.isEmpty {
            try storage.withAdapter { adapter in try adapter.commit(corrupt.map { .delete(Self.category, key: $0) }) }
            statistics.dropped += corrupt.count
        }
        statistics.pending = entries.count
    }

    /// Queues `notification` (durably, before returning), dropping the oldest entry
    /// when the outbox is full.
    public func enqueue(_ notification: ServerNotification, now: Int64) throws(AccordError) {
        try locked { () throws(AccordError) in
            let key = String(format: "%020llu", nextSequence)
            let entry = Entry(notification: notification, attempts: 0, nextAttemptAt: now)
            var batch: [StorageOperation] = [.put(Self.category, key: key, value: try Self.encode(entry))]
            let overflow = max(0, entries.count + 1 - capacity)
            batch += entries.prefix(overflow).map { .delete(Self.category, key: $0.key) }
            try storage.withAdapter { try $0.commit(batch) }
            entries.removeFirst(overflow)
            entries.append((key, entry))
            nextSequence += 1
            statistics.queued += 1
            statistics.dropped += overflow
            statistics.pending = entries.count
        }
    }

    /// The oldest entry due at `now`, if any (deliveries go one at a time, in order of
    /// their due time and then of queuing).
    public func nextDue(now: Int64) -> (key: String, entry: Entry)? {
        lock.lock()
        defer { lock.unlock() }
        return entries.filter { $0.entry.nextAttemptAt <= now }.min { $0.entry.nextAttemptAt < $1.entry.nextAttemptAt }
    }

    /// The entries waiting, oldest first (tests, tools).
    public var pending: [Entry] {
        lock.lock()
        defer { lock.unlock() }
        return entries.map(\.entry)
    }

    public var currentStatistics: Statistics {
        lock.lock()
        defer { lock.unlock() }
        return statistics
    }

    /// The webhook took the entry: it goes.
    public func delivered(_ key: String) throws(AccordError) {
        try locked { () throws(AccordError) in
            guard let index = entries.firstIndex(where: { $0.key == key }) else { return }
            try storage.withAdapter { try $0.commit([.delete(Self.category, key: key)]) }
            entries.remove(at: index)
            statistics.delivered += 1
            statistics.pending = entries.count
        }
    }

    /// The attempt failed: the entry waits `delay` milliseconds, or goes (counted as
    /// dropped) after ``maxAttempts`` failures.
    public func failed(_ key: String, now: Int64, delay: Int64) throws(AccordError) {
        try locked { () throws(AccordError) in
            guard let index = entries.firstIndex(where: { $0.key == key }) else { return }
            statistics.failedAttempts += 1
            var entry = entries[index].entry
            entry.attempts += 1
            if entry.attempts >= maxAttempts {
                try storage.withAdapter { try $0.commit([.delete(Self.category, key: key)]) }
                entries.remove(at: index)
                statistics.dropped += 1
            } else {
                entry.nextAttemptAt = now + max(0, delay)
                let bytes = try Self.encode(entry)
                try storage.withAdapter { try $0.commit([.put(Self.category, key: key, value: bytes)]) }
                entries[index].entry = entry
            }
            statistics.pending = entries.count
        }
    }

    private func locked<T>(_ body: () throws(AccordError) -> T) throws(AccordError) -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    private static func encode(_ entry: Entry) throws(AccordError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(entry))
        } catch {
            throw AccordError(.storageError, "cannot encode a notification: \(error)")
        }
    }
}
