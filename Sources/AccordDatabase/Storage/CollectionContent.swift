import AccordCRDT
import AccordStore

/// One collection's documents in its CRDT document: a root map `documents` from document
/// id to a nested map of properties (dictionaries nested maps, arrays lists), the layout
/// any Yjs peer can read and write. Deleting a document deletes its key, which syncs.
///
/// The database's own transactions are appended to the store as local edits (which an
/// `AccordClient` over the same store sends); updates received through a client are in
/// the store already, so they are applied with ``syncedOrigin`` and not appended again,
/// and the ids they touched are collected for the document table.
///
/// Not `Sendable`: its `Doc` belongs to the ``Database``, reached only under its lock.
final class CollectionContent {
    static let rootName = "documents"
    /// The origin of updates that came from the store (received by a client).
    static let syncedOrigin = Origin("accord.database.synced")

    let key: CollectionKey
    let id: DocumentID
    let store: DocumentStore
    let doc: Doc
    let root: YMap
    private let pending = Pending()
    private var subscriptions: [Subscription] = []

    /// What the `Doc` callbacks leave for the database: an append that failed (thrown at
    /// the next commit) and the ids synced updates touched.
    private final class Pending {
        var appendError: AccordError?
        var syncedIDs: [String] = []
    }

    init(key: CollectionKey, id: DocumentID, store: DocumentStore) throws(AccordError) {
        self.key = key
        self.id = id
        self.store = store
        doc = try store.load(id)
        root = try doc.getMap(Self.rootName)
        let pending = pending
        subscriptions.append(doc.onUpdate { [store, id] update, origin in
            guard origin != Self.syncedOrigin else { return }
            do throws(AccordError) {
                try store.append(update, to: id, isLocal: true)
            } catch {
                if pending.appendError == nil { pending.appendError = error }
            }
        })
        subscriptions.append(root.observeDeep { events in
            for event in events where event.origin == Self.syncedOrigin {
                if case .key(let changed)? = event.path.first {
                    pending.syncedIDs.append(changed)
                } else {
                    pending.syncedIDs.append(contentsOf: event.keys.keys)
                }
            }
        })
    }

    /// Stops appending (the database is closing or the collection going).
    func close() {
        for subscription in subscriptions { subscription.cancel() }
        subscriptions = []
    }

    deinit { close() }

    /// Throws the error of an append that failed since the last call.
    func checkAppends() throws(AccordError) {
        if let error = pending.appendError {
            pending.appendError = nil
            throw error
        }
    }

    /// Applies an update the store holds already (received by a client) and returns the
    /// ids of the documents it touched, each once.
    func applySynced(_ update: [UInt8]) throws(AccordError) -> [String] {
        pending.syncedIDs = []
        try doc.applyUpdate(update, origin: Self.syncedOrigin)
        var seen = Set<String>()
        return pending.syncedIDs.filter { seen.insert($0).inserted }
    }

    /// The stored content of a document, or nil when the collection has none by that id
    /// (or holds something other than a map under it, which no Accord writer does).
    func object(_ id: String) -> OrderedObject? {
        guard case .map(let map)? = root[id], case .object(let object) = map.json else { return nil }
        return object
    }

    var ids: [String] { root.keys }

    /// Writes `current` as the document's content: edits from `base` when the document
    /// still exists (see ``CRDTWriter``), a new map otherwise.
    func write(id: String, base: OrderedObject?, current: OrderedObject) throws(AccordError) {
        if case .map(let map)? = root[id] {
            let from = base ?? object(id) ?? OrderedObject()
            try CRDTWriter.apply(from: from, to: current, onto: map)
        } else {
            try CRDTWriter.fill(try root.setMap(id), with: current)
        }
    }

    func delete(id: String) throws(AccordError) {
        if root.contains(id) { try root.delete(id) }
    }
}
