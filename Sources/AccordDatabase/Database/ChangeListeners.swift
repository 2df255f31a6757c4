import AccordCRDT
public import Dispatch
import Foundation

/// The documents of one collection that one committed batch (or a refresh from the
/// store) changed: saved, deleted or purged.
public struct CollectionChange: Sendable {
    public let collection: Collection
    /// The ids changed, in the order the batch wrote them, each once.
    public let documentIDs: [String]
}

/// One document's change, for ``Collection/addDocumentChangeListener(id:queue:_:)``.
public struct DatabaseDocumentChange: Sendable {
    public let collection: Collection
    public let documentID: String
}

/// Returned by the `add…Listener` calls; ``remove()`` stops the calls (idempotent).
public final class ListenerToken: Sendable {
    private let removal: @Sendable () -> Void
    init(_ removal: @escaping @Sendable () -> Void) { self.removal = removal }
    public func remove() { removal() }
}

/// The registered listeners of a database, told after each commit: after the store's
/// flush and the document table's transaction, so a listener that reads sees the change.
final class ChangeListeners: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `registrations` and `nextID` are touched only
    // while `lock` is held; handlers run on their queues, outside the lock.
    private let lock = NSLock()
    private var registrations: [Int: Registration] = [:]
    private var nextID = 0
    /// Where listeners registered without a queue are called: one serial queue per
    /// database, so they run in commit order.
    let defaultQueue = DispatchQueue(label: "accord.database.listeners")

    struct Registration {
        var collection: Collection
        var documentID: String?
        var queue: DispatchQueue
        var handler: @Sendable ([String]) -> Void
    }

    func add(_ registration: Registration) -> ListenerToken {
        let id = lock.locked {
            nextID += 1
            registrations[nextID] = registration
            return nextID
        }
        return ListenerToken { [weak self] in self?.lock.locked { _ = self?.registrations.removeValue(forKey: id) } }
    }

    func notify(_ changed: [CollectionKey: [String]]) {
        let current = lock.locked { Array(registrations.values) }
        for registration in current {
            guard var ids = changed[registration.collection.key] else { continue }
            var seen = Set<String>()
            ids = ids.filter { seen.insert($0).inserted }
            if let documentID = registration.documentID {
                guard ids.contains(documentID) else { continue }
                ids = [documentID]
            }
            let handler = registration.handler
            let heard = ids
            registration.queue.async { handler(heard) }
        }
    }
}

extension Collection {
    /// Calls `listener` on `queue` (the database's serial listener queue when nil) after
    /// each committed change to documents of this collection, local or from the store.
    public func addChangeListener(
        queue: DispatchQueue? = nil, _ listener: @escaping @Sendable (CollectionChange) -> Void
    ) -> ListenerToken {
        database.listeners.add(.init(
            collection: self, documentID: nil, queue: queue ?? database.listeners.defaultQueue,
            handler: { [self] ids in listener(CollectionChange(collection: self, documentIDs: ids)) }))
    }

    /// Calls `listener` on `queue` after each committed change to the document `id`.
    public func addDocumentChangeListener(
        id: String, queue: DispatchQueue? = nil, _ listener: @escaping @Sendable (DatabaseDocumentChange) -> Void
    ) -> ListenerToken {
        database.listeners.add(.init(
            collection: self, documentID: id, queue: queue ?? database.listeners.defaultQueue,
            handler: { [self] _ in listener(DatabaseDocumentChange(collection: self, documentID: id)) }))
    }

    /// The same changes as an `AsyncStream`; the listener goes when the stream ends.
    public func changes() -> AsyncStream<CollectionChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: CollectionChange.self)
        let token = addChangeListener { continuation.yield($0) }
        continuation.onTermination = { _ in token.remove() }
        return stream
    }
}
