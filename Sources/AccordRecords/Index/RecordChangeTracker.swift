public import AccordCRDT

/// Collects, from a document's events, which records of each model changed: a record
/// created, replaced or deleted in the model's root map, or any field (or string-set
/// member) inside it. The owner of the document takes the ids after each transaction
/// and projects only those: the index follows changes, it is never rebuilt per change.
///
/// Not `Sendable`: it lives with its document's owner, as the document does.
public final class RecordChangeTracker {
    private var subscriptions: [Subscription] = []
    private var changed: [String: Set<String>] = [:]
    /// Of `changed`, the ids the root map gained (absent before their transaction).
    private var created: [String: Set<String>] = [:]

    /// Starts tracking the root maps of `models` in `doc`.
    public init(doc: Doc, models: [ModelSchema]) throws(AccordError) {
        for model in models { try track(model, in: doc) }
    }

    deinit { subscriptions.forEach { $0.cancel() } }

    /// Starts tracking one more model (a model registered while the document is open).
    public func track(_ model: ModelSchema, in doc: Doc) throws(AccordError) {
        let name = model.name
        let root = try doc.getMap(name)
        subscriptions.append(root.observeDeep { [unowned self] events in
            for event in events {
                if case .key(let id)? = event.path.first {
                    changed[name, default: []].insert(id)
                } else if event.path.isEmpty {
                    // A batch of new records, the first change of the model since the last take:
                    // one set serves as both (each set built is a hash per id).
                    if changed[name] == nil, created[name] == nil, event.keys.values.allSatisfy({ $0.action == .add }) {
                        let ids = Set(event.keys.keys)
                        changed[name] = ids
                        created[name] = ids
                        continue
                    }
                    changed[name, default: []].formUnion(event.keys.keys)
                    // Gathered first, then added in one go: one lookup of the model, not one per id.
                    let added = event.keys.compactMap { $0.value.action == .add ? $0.key : nil }
                    if !added.isEmpty { created[name, default: []].formUnion(added) }
                }
            }
        })
    }

    /// The record ids changed since the last call, by model; resets.
    public func take() -> [String: Set<String>] {
        takeChanges().changed
    }

    /// The record ids changed since the last call, by model, and among them those a
    /// transaction created (the model's map did not hold them before it); resets.
    /// `created` is a hint for the index (a new record has no rows to replace), which
    /// it checks rather than trusts.
    public func takeChanges() -> (changed: [String: Set<String>], created: [String: Set<String>]) {
        defer {
            changed = [:]
            created = [:]
        }
        return (changed, created)
    }
}
