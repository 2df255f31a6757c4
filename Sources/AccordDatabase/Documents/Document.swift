import AccordCRDT
import AccordStore
public import Foundation

/// A document as it was read: its id, its sequence and its properties, read-only.
/// ``toMutable()`` gives a ``MutableDocument`` to edit and save.
///
/// A document read from a collection remembers its content as read (its base), so a save
/// writes only the properties changed since, and `.failOnConflict` can tell whether
/// another writer changed it meanwhile.
public class Document: PropertyContainer {
    /// The id: unique in its collection, never changed.
    public let id: String
    /// Bumped by every change the database stores for this document (local or remote);
    /// 0 for a document never saved.
    public internal(set) var sequence: UInt64
    /// The content as last read or saved; nil for a document never saved.
    var base: OrderedObject?

    init(id: String, sequence: UInt64, base: OrderedObject?, properties: [String: Property]) {
        self.id = id
        self.sequence = sequence
        self.base = base
        super.init(properties: properties)
    }

    /// A document read from storage (its properties built on first use); its blobs read
    /// from `blobs`.
    init(id: String, sequence: UInt64, stored object: OrderedObject, blobs: BlobStore? = nil) {
        self.id = id
        self.sequence = sequence
        base = object
        super.init(stored: object, mutable: false, blobs: blobs)
    }

    /// A mutable copy to edit and save; it keeps this document's base and sequence.
    public func toMutable() -> MutableDocument {
        MutableDocument(id: id, sequence: sequence, base: base, properties: properties.mapValues { $0.mutableCopy() })
    }
}

/// A document to edit and save: new (`init()`, `init(id:)`, `init(json:)`) or from
/// ``Document/toMutable()``. Nested dictionaries and arrays it returns are live: editing
/// them edits the document.
public final class MutableDocument: Document, MutableProperties {
    /// A new document with a generated id (UUID text).
    public convenience init() { self.init(id: nil) }

    /// A new document with this id (a generated one when nil).
    public init(id: String?) {
        super.init(id: id ?? UUID().uuidString, sequence: 0, base: nil, properties: [:])
    }

    /// A new document with `data` as its properties.
    public convenience init(id: String? = nil, data: [String: Any]) {
        self.init(id: id)
        setData(data)
    }

    /// A new document with the properties of a JSON object (`MALFORMED_JSON` or
    /// `INVALID_ARGUMENT` for text that is not a JSON object).
    public convenience init(id: String? = nil, json: String) throws(AccordError) {
        self.init(id: id)
        try setJSON(json)
    }

    override init(id: String, sequence: UInt64, base: OrderedObject?, properties: [String: Property]) {
        super.init(id: id, sequence: sequence, base: base, properties: properties)
    }

    public override func dictionary(forKey key: String) -> MutableDictionaryObject? {
        super.dictionary(forKey: key) as? MutableDictionaryObject
    }

    public override func array(forKey key: String) -> MutableArrayObject? {
        super.array(forKey: key) as? MutableArrayObject
    }

    /// A mutable copy of this document (its own nested objects).
    public override func toMutable() -> MutableDocument { super.toMutable() }
}
