public import Foundation
import AccordCRDT
import AccordStore

/// The read accessors shared by ``Document`` and ``DictionaryObject``: properties by
/// key, each getter returning its type's default when the key is absent (0, 0.0,
/// `false`, nil) and converting between number types as Couchbase Lite does (see
/// `docs/database.md`).
///
/// Not `Sendable`: like Couchbase Lite's documents, one belongs to one thread at a time.
public class PropertyContainer {
    /// The properties by key, built from the stored JSON on first use (a query's results
    /// are often counted, passed on or read for one key: building every nested object
    /// up front was most of an indexed query's time). A mutable container keeps only
    /// mutable nested objects here.
    var properties: [String: Property] {
        get {
            if let materialized { return materialized }
            return materialize()
        }
        _modify {
            if materialized == nil { _ = materialize() }
            yield &materialized!
        }
        set {
            materialized = newValue
            stored = nil
        }
    }
    private var materialized: [String: Property]?
    /// The stored JSON not yet turned into ``properties``.
    private var stored: (object: OrderedObject, mutable: Bool, blobs: BlobStore?)?
    /// The first invalid value a chained setter was given (setters cannot throw);
    /// `save` reports it as `INVALID_VALUE` and writes nothing.
    var invalidEdit: AccordError?

    init(properties: [String: Property]) {
        materialized = properties
    }

    /// Properties of stored JSON, built when first used.
    init(stored object: OrderedObject, mutable: Bool, blobs: BlobStore?) {
        stored = (object, mutable, blobs)
    }

    /// Replaces every property with those of stored JSON, built when first used.
    func setStored(_ object: OrderedObject, mutable: Bool, blobs: BlobStore?) {
        materialized = nil
        stored = (object, mutable, blobs)
    }

    private func materialize() -> [String: Property] {
        let built = stored.map { Self.properties(of: $0.object, mutable: $0.mutable, blobs: $0.blobs) } ?? [:]
        materialized = built
        stored = nil
        return built
    }

    /// How many properties there are.
    public var count: Int { properties.count }
    /// The property names, sorted (by code point), so iteration is the same everywhere.
    /// UTF-8 bytes order as code points do, and compare faster than scalars.
    public var keys: [String] { properties.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
    public func contains(key: String) -> Bool { properties[key] != nil }

    /// The value as a plain type (`String`, `Int`, `Double`, `Bool`, `NSNull`), or a
    /// ``DictionaryObject`` / ``ArrayObject``; nil when absent.
    public func value(forKey key: String) -> Any? { properties[key]?.objectValue }
    public subscript(key: String) -> Any? { value(forKey: key) }

    /// The string, or nil when absent or not a string.
    public func string(forKey key: String) -> String? {
        if case .scalar(.string(let s)) = properties[key] { return s }
        return nil
    }
    public func int(forKey key: String) -> Int { Int(NumberConversion.int64(properties[key])) }
    public func int64(forKey key: String) -> Int64 { NumberConversion.int64(properties[key]) }
    public func double(forKey key: String) -> Double { NumberConversion.double(properties[key]) }
    public func float(forKey key: String) -> Float { Float(NumberConversion.double(properties[key])) }
    public func boolean(forKey key: String) -> Bool { NumberConversion.bool(properties[key]) }
    /// The date of an ISO-8601 string property; nil when absent or not a date.
    public func date(forKey key: String) -> Date? { PropertyInput.date(properties[key]) }
    public func dictionary(forKey key: String) -> DictionaryObject? {
        if case .dictionary(let d) = properties[key] { return d }
        return nil
    }
    public func array(forKey key: String) -> ArrayObject? {
        if case .array(let a) = properties[key] { return a }
        return nil
    }
    /// The blob, or nil when absent or not a blob.
    public func blob(forKey key: String) -> Blob? {
        if case .blob(let b) = properties[key] { return b }
        return nil
    }

    /// The properties as plain Swift values (nested `[String: Any]` and `[Any]`).
    public func toDictionary() -> [String: Any] { properties.mapValues(\.plainValue) }

    /// The properties as JSON text, keys sorted: what a save would store, or `{}` when a
    /// save would refuse the content (an invalid value was set; see ``MutableProperties``).
    public func toJSON() -> String { ((try? json(depth: 0)) ?? .object(OrderedObject())).jsonText }

    /// The stored form: an object with keys in code-point order.
    func json(depth: Int) throws(AccordError) -> AnyValue {
        if let invalidEdit { throw invalidEdit }
        // Not built yet (a document from JSON that was saved unread): the stored JSON
        // with its keys sorted is what the properties would give, unless it holds a blob
        // or nests too deep, which the properties path handles (and refuses).
        if materialized == nil, let stored, let object = StoredJSON.normalized(stored.object, depth: depth) {
            return .object(object)
        }
        var entries: [(String, AnyValue)] = []
        entries.reserveCapacity(properties.count)
        for key in keys {
            entries.append((key, try properties[key]!.json(depth: depth, key: key)))
        }
        return .object(OrderedObject(entries))
    }

    static func properties(of object: OrderedObject, mutable: Bool, blobs: BlobStore? = nil) -> [String: Property] {
        var result: [String: Property] = [:]
        result.reserveCapacity(object.count)
        for (key, value) in object { result[key] = Property.stored(value, mutable: mutable, blobs: blobs) }
        return result
    }

    /// The blobs set in this container (at any depth) that are not stored yet.
    func unsavedBlobs() -> [Blob] {
        // Stored JSON holds only stored blobs (with digests); new ones come from setters.
        if materialized == nil { return [] }
        var blobs: [Blob] = []
        for property in properties.values { property.unsavedBlobs(depth: 1, into: &blobs) }
        return blobs
    }
}

/// A read-only nested dictionary of a ``Document``.
public class DictionaryObject: PropertyContainer {
    init(stored object: OrderedObject, blobs: BlobStore? = nil) {
        super.init(stored: object, mutable: false, blobs: blobs)
    }

    override init(stored object: OrderedObject, mutable: Bool, blobs: BlobStore?) {
        super.init(stored: object, mutable: mutable, blobs: blobs)
    }

    override init(properties: [String: Property]) {
        super.init(properties: properties)
    }

    /// A mutable copy (nested objects copied too).
    public func toMutable() -> MutableDictionaryObject {
        MutableDictionaryObject(properties: properties.mapValues { $0.mutableCopy() })
    }
}
