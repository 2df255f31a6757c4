import Foundation
import AccordStore

/// Hands every ``ClientEvent`` to each current subscriber, in the order emitted.
///
/// Each subscription is an `AsyncStream` whose termination (the consumer's loop ended,
/// its task was cancelled) removes it, so a stream lives exactly as long as the loop
/// reading it. Buffers are unbounded: a subscriber that reads slowly sees every event
/// late rather than missing any.
final class EventBus: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `subscribers` and `isFinished` are only
    // touched under `lock`; continuations are Sendable.
    private let lock = NSLock()
    private var subscribers: [UInt64: AsyncStream<ClientEvent>.Continuation] = [:]
    private var nextKey: UInt64 = 0
    private var isFinished = false

    /// A stream of every event emitted from now on; finished at once after ``finish()``.
    func subscribe() -> AsyncStream<ClientEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ClientEvent.self)
        let key: UInt64? = lock.locked {
            guard !isFinished else { return nil }
            nextKey += 1
            subscribers[nextKey] = continuation
            return nextKey
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            _ = self.lock.locked { self.subscribers.removeValue(forKey: key) }
        }
        return stream
    }

    func emit(_ event: ClientEvent) {
        let targets = lock.locked { Array(subscribers.values) }
        for target in targets { target.yield(event) }
    }

    /// Ends every stream; later subscriptions end at once.
    func finish() {
        let targets = lock.locked {
            isFinished = true
            defer { subscribers = [:] }
            return Array(subscribers.values)
        }
        for target in targets { target.finish() }
    }

    var subscriberCount: Int { lock.locked { subscribers.count } }
}
