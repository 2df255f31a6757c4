public import AccordCRDT
public import AccordStore
public import AccordSync
import Foundation

/// Records of one model that a transaction created, changed or deleted, announced once
/// the store made the transaction durable.
public struct RecordChange: Sendable, Hashable {
    public let model: String
    public let document: DocumentID
    /// The ids touched, in code point order.
    public let ids: [String]
}

/// Cancels a subscription; cancelling twice does nothing.
public final class RecordSubscription: Sendable {
    private let cancelAction: @Sendable () -> Void
    init(_ cancel: @escaping @Sendable () -> Void) { cancelAction = cancel }
    public func cancel() { cancelAction() }
}

extension ClientRecords {
    /// Calls `handler` for every change to records of `model`, local or remote, after
    /// it is durable in the store, on the client's queue: keep it short (the stream
    /// form, ``changes(_:)``, suits longer work).
    public func subscribe(_ model: String, _ handler: @escaping @Sendable (RecordChange) -> Void) -> RecordSubscription {
        let key = subscribers.add(model: model, handler)
        return RecordSubscription { [weak self] in self?.subscribers.remove(key) }
    }

    /// The changes to records of `model` as a stream (see ``subscribe(_:_:)``); it
    /// ends when the consumer stops iterating.
    public func changes(_ model: String, bufferingPolicy: AsyncStream<RecordChange>.Continuation.BufferingPolicy = .unbounded)
        -> AsyncStream<RecordChange>
    {
        AsyncStream(bufferingPolicy: bufferingPolicy) { continuation in
            let subscription = subscribe(model) { continuation.yield($0) }
            continuation.onTermination = { _ in subscription.cancel() }
        }
    }

    public func documentStored(_ id: DocumentID, through sequence: UInt64, client: isolated AccordClient) {
        guard let changes = projectorChanges(id, through: sequence) else { return }
        // Sorting a large batch's ids is most of the work here: only for a model someone listens to.
        for (model, ids) in changes.sorted(by: { $0.key < $1.key }) where subscribers.listens(to: model) {
            subscribers.deliver(RecordChange(model: model, document: id, ids: ids.sorted(by: CodePoints.less)))
        }
    }
}

/// The subscribers of one ``ClientRecords``, by model. Thread-safe.
final class RecordSubscribers: @unchecked Sendable {
    // Invariant: `handlers` and `nextKey` are touched only under `lock`.
    private let lock = NSLock()
    private var handlers: [UInt64: (model: String, handler: @Sendable (RecordChange) -> Void)] = [:]
    private var nextKey: UInt64 = 0

    func add(model: String, _ handler: @escaping @Sendable (RecordChange) -> Void) -> UInt64 {
        lock.locked {
            nextKey += 1
            handlers[nextKey] = (model, handler)
            return nextKey
        }
    }

    func listens(to model: String) -> Bool { lock.locked { handlers.values.contains { $0.model == model } } }

    func remove(_ key: UInt64) { lock.locked { _ = handlers.removeValue(forKey: key) } }

    /// Calls the model's handlers outside the lock, so a handler may subscribe or cancel.
    func deliver(_ change: RecordChange) {
        let targets = lock.locked { handlers.sorted { $0.key < $1.key }.filter { $0.value.model == change.model } }
        for target in targets { target.value.handler(change) }
    }
}
