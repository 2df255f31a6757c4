public import AccordCRDT
import Foundation

/// How many documents each user may create per hour, shared by `POST /v1/documents`
/// and create-on-connect.
///
/// A token bucket per user: it holds ``limit`` creations, each creation takes one, and
/// it refills at ``limit`` per hour. A user may so create ``limit`` documents at once,
/// then one every `3600 / limit` seconds. Kept in memory: a restart refills every
/// bucket, which costs at most one extra hour's worth. Thread-safe (REST runs on the
/// network thread, create-on-connect on the sync queue).
public final class CreationQuota: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `buckets` is only touched under `lock`.
    private let lock = NSLock()
    public let limit: Int
    private let now: @Sendable () -> UInt64
    private let onRefused: @Sendable () -> Void
    private var buckets: [String: Bucket] = [:]

    private struct Bucket {
        var tokens: Double
        var updated: UInt64
    }

    /// Buckets kept before full ones are forgotten (a full bucket is the default state).
    private static let pruneThreshold = 10_000
    private static let hourMilliseconds = 3_600_000.0

    /// - Parameters:
    ///   - limit: creations per user per hour, at least 1.
    ///   - now: milliseconds since the epoch.
    ///   - onRefused: called for each refusal (the server counts them in `/metrics`).
    public init(
        limit: Int, now: @escaping @Sendable () -> UInt64, onRefused: @escaping @Sendable () -> Void = {}
    ) {
        self.limit = max(1, limit)
        self.now = now
        self.onRefused = onRefused
    }

    /// Takes one creation from `user`'s bucket, or throws `TOO_MANY_DOCUMENTS`.
    func take(_ user: String) throws(AccordError) {
        // lock()/unlock(), not NSLock.withLock: that needs macOS 14 / iOS 17.
        lock.lock()
        let refused = !takeToken(user)
        lock.unlock()
        guard refused else { return }
        onRefused()
        throw AccordError(
            .tooManyDocuments, "at most \(limit) documents may be created per user per hour; try again later",
            details: ["limit": String(limit)])
    }

    /// Returns a creation taken for a document that was not created after all.
    func giveBack(_ user: String) {
        // lock()/unlock(), not NSLock.withLock: that needs macOS 14 / iOS 17.
        lock.lock()
        defer { lock.unlock() }
        guard var bucket = buckets[user] else { return }
        bucket.tokens = min(Double(limit), bucket.tokens + 1)
        buckets[user] = bucket
    }

    /// Takes a token from `user`'s refilled bucket if it has one. Caller holds `lock`.
    private func takeToken(_ user: String) -> Bool {
        let at = now()
        var bucket = refilled(buckets[user], at: at)
        guard bucket.tokens >= 1 else {
            buckets[user] = bucket
            return false
        }
        bucket.tokens -= 1
        buckets[user] = bucket
        if buckets.count > Self.pruneThreshold { prune(at: at) }
        return true
    }

    private func refilled(_ bucket: Bucket?, at time: UInt64) -> Bucket {
        guard var bucket else { return Bucket(tokens: Double(limit), updated: time) }
        let elapsed = Double(time - min(time, bucket.updated))
        bucket.tokens = min(Double(limit), bucket.tokens + elapsed * Double(limit) / Self.hourMilliseconds)
        bucket.updated = time
        return bucket
    }

    /// Forgets users whose bucket has refilled: they are back to the default.
    private func prune(at time: UInt64) {
        buckets = buckets.filter { refilled($0.value, at: time).tokens < Double(limit) }
    }
}
