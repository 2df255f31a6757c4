public import AccordCRDT
public import AccordStore
public import AccordSync
import Foundation

/// The records of one ``AccordSync/AccordClient``: its registered models, its
/// ``RecordIndex``, and the projection of every open document into it. Made by
/// `client.registerModels(_:)`; reached with `client.records`.
///
/// Reads are synchronous and may run on any thread (the main thread included); they
/// span every open document unless scoped (a document not open matches nothing).
/// Writes go through the client like any edit: stored, then synced; the index follows
/// the transaction at once, so a read on the next line sees a save.
///
/// The index lives beside the client's store (`<store>.records`), so reopening an
/// unchanged document projects nothing; in memory for an in-memory or sealed store.
public final class ClientRecords: DocumentObserver, @unchecked Sendable {
    // Invariant: `projectors` is touched only in code isolated to the client (the
    // observer calls and the client-isolated methods below); `openDocuments` only
    // under `lock`. The index has its own lock.
    public let index: RecordIndex
    let store: DocumentStore
    private var projectors: [DocumentID: DocumentProjector] = [:]
    private let lock = NSLock()
    private var openDocuments: Set<DocumentID> = []
    private var failures: [DocumentID: AccordError] = [:]
    let subscribers = RecordSubscribers()
    /// The client these records belong to (set once, when made).
    public private(set) weak var client: AccordClient?

    init(store: DocumentStore, client: AccordClient) throws(AccordError) {
        self.store = store
        self.client = client
        let path = store.storage.filePath.map { $0 + ".records" } ?? ":memory:"
        index = try RecordIndex(path: path)
    }

    /// The registered models, by name.
    public var models: [String: ModelSchema] { index.models }

    /// The documents queries span by default: the open ones.
    public var documents: Set<DocumentID> { lock.locked { openDocuments } }

    /// A projection that failed for a document (its rows may be stale until it is
    /// opened again), by document.
    public var projectionFailures: [DocumentID: AccordError] {
        // Failures of opening and closing, and of the index's queued writes.
        index.queuedFailures.merging(lock.locked { failures }) { _, own in own }
    }

    // MARK: Following documents (isolated to the client)

    public func documentOpened(_ id: DocumentID, doc: Doc, client: isolated AccordClient) {
        do throws(AccordError) {
            let projector = try DocumentProjector(id: id, doc: doc, index: index, store: store)
            _ = try projector.track(Array(index.models.values))
            try projector.catchUp()
            projectors[id] = projector
            lock.locked {
                openDocuments.insert(id)
                failures[id] = nil
            }
        } catch {
            lock.locked { failures[id] = error }
        }
    }

    public func documentClosed(_ id: DocumentID, client: isolated AccordClient) {
        guard let projector = projectors.removeValue(forKey: id) else { return }
        lock.locked { _ = openDocuments.remove(id) }
        do throws(AccordError) {
            try projector.markCurrent()
        } catch {
            lock.locked { failures[id] = error }
        }
    }

    /// The projector of an open document (isolated to the client).
    func projector(of id: DocumentID) -> DocumentProjector? { projectors[id] }

    /// The durable changes of an open document's projector (isolated to the client).
    func projectorChanges(_ id: DocumentID, through sequence: UInt64) -> [String: Set<String>]? {
        guard let changes = projectors[id]?.takeDurable(through: sequence, wanted: subscribers.listens(to:)),
            !changes.isEmpty
        else { return nil }
        return changes
    }

    /// Registers `models` and brings every open document's projection up to date.
    func register(_ models: [ModelSchema], client: isolated AccordClient) throws(AccordError) {
        try index.register(models)
        for (id, projector) in projectors.sorted(by: { $0.key < $1.key }) {
            let all = Array(index.models.values)
            if try projector.track(all) {
                // Changes made before it followed these models went unseen: project the
                // document unless its stored position says nothing changed since.
                try projector.catchUp()
            }
            lock.locked { failures[id] = projector.lastError }
        }
    }

    // MARK: Scope

    /// `requested` limited to the open documents (all of them when nil).
    func scope(_ requested: [DocumentID]?) -> [DocumentID] {
        let open = documents
        guard let requested else { return open.sorted() }
        return requested.filter { open.contains($0) }
    }
}
