import AccordCRDT
import AccordStore

/// One collection's documents in its CRDT document: a root map `documents` from document
/// id to a nested map of properties (dictionaries nested maps, arrays lists), the layout
/// any Yjs peer can read and write. Deleting a document deletes its key, which syncs.
///
/// Not `Sendable`: its `Doc` belongs to the ``Database``, reached only under its lock.
final class CollectionContent {
    static let rootName = "documents"

    let key: CollectionKey
    let stored: StoredDocument
    let root: YMap

    init(key: CollectionKey, stored: StoredDocument) throws(AccordError) {
        self.key = key
        self.stored = stored
        root = try stored.doc.getMap(Self.rootName)
    }

    /// The stored content of a document, or nil when the collection has none by that id
    /// (or holds something other than a map under it, which no Accord writer does).
    func object(_ id: String) -> OrderedObject? {
        guard case .map(let map)? = root[id], case .object(let object) = map.json else { return nil }
        return object
    }

    var ids: [String] { root.keys }

    /// Writes `current` as the document's content: edits from `base` when the document
    /// still exists (see ``CRDTWriter``), a new map otherwise. Returns the stored result.
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
