public import Foundation
import AccordCRDT
import AccordStore

/// A read-only array of a ``Document``: the same getters as a dictionary, by index. An
/// index outside the array reads as absent (the type's default), never a crash.
public class ArrayObject {
    var items: [Property]
    /// The first invalid value or index a setter was given; `save` reports it (see
    /// ``MutableProperties``).
    var invalidEdit: AccordError?

    init(items: [Property]) {
        self.items = items
    }

    init(stored items: [AnyValue], blobs: BlobStore? = nil) {
        self.items = items.map { Property.stored($0, mutable: false, blobs: blobs) }
    }

    public var count: Int { items.count }

    func item(_ index: Int) -> Property? { items.indices.contains(index) ? items[index] : nil }

    public func value(at index: Int) -> Any? { item(index)?.objectValue }
    public subscript(index: Int) -> Any? { value(at: index) }
    public func string(at index: Int) -> String? {
        if case .scalar(.string(let s)) = item(index) { return s }
        return nil
    }
    public func int(at index: Int) -> Int { Int(NumberConversion.int64(item(index))) }
    public func int64(at index: Int) -> Int64 { NumberConversion.int64(item(index)) }
    public func double(at index: Int) -> Double { NumberConversion.double(item(index)) }
    public func float(at index: Int) -> Float { Float(NumberConversion.double(item(index))) }
    public func boolean(at index: Int) -> Bool { NumberConversion.bool(item(index)) }
    public func date(at index: Int) -> Date? { PropertyInput.date(item(index)) }
    public func dictionary(at index: Int) -> DictionaryObject? {
        if case .dictionary(let d) = item(index) { return d }
        return nil
    }
    public func array(at index: Int) -> ArrayObject? {
        if case .array(let a) = item(index) { return a }
        return nil
    }
    public func blob(at index: Int) -> Blob? {
        if case .blob(let b) = item(index) { return b }
        return nil
    }

    /// The items as plain Swift values (nested `[String: Any]` and `[Any]`).
    public func toArray() -> [Any] { items.map(\.plainValue) }

    /// The items as JSON text; `[]` when a save would refuse the content.
    public func toJSON() -> String { ((try? json(depth: 0)) ?? .array([])).jsonText }

    /// A mutable copy (nested objects copied too).
    public func toMutable() -> MutableArrayObject { MutableArrayObject(items: items.map { $0.mutableCopy() }) }

    func json(depth: Int) throws(AccordError) -> AnyValue {
        if let invalidEdit { throw invalidEdit }
        var result: [AnyValue] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() { result.append(try item.json(depth: depth, key: "[\(index)]")) }
        return .array(result)
    }
}

/// An array that can be edited. Setters chain like a dictionary's; an index outside the
/// array (or an invalid value) changes nothing and is reported by the next `save` as
/// `INVALID_VALUE`, instead of stopping the program as Couchbase Lite does.
public final class MutableArrayObject: ArrayObject {
    public init() { super.init(items: []) }

    /// An array holding `data` (see ``MutableProperties/setValue(_:forKey:)`` for the types).
    public convenience init(data: [Any]) {
        self.init()
        setData(data)
    }

    /// An array holding a JSON array.
    public convenience init(json: String) throws(AccordError) {
        self.init()
        try setJSON(json)
    }

    override init(items: [Property]) { super.init(items: items) }

    override init(stored items: [AnyValue], blobs: BlobStore? = nil) {
        super.init(items: items.map { Property.stored($0, mutable: true, blobs: blobs) })
    }

    public override func dictionary(at index: Int) -> MutableDictionaryObject? {
        super.dictionary(at: index) as? MutableDictionaryObject
    }
    public override func array(at index: Int) -> MutableArrayObject? { super.array(at: index) as? MutableArrayObject }

    @discardableResult public func setValue(_ value: Any?, at index: Int) -> Self {
        guard items.indices.contains(index) else { return outOfRange(index) }
        return edit(value, at: index) { items[index] = $0 }
    }
    @discardableResult public func addValue(_ value: Any?) -> Self { edit(value, at: items.count) { items.append($0) } }
    @discardableResult public func insertValue(_ value: Any?, at index: Int) -> Self {
        guard (0...items.count).contains(index) else { return outOfRange(index) }
        return edit(value, at: index) { items.insert($0, at: index) }
    }
    @discardableResult public func removeValue(at index: Int) -> Self {
        guard items.indices.contains(index) else { return outOfRange(index) }
        items.remove(at: index)
        return self
    }

    @discardableResult public func setString(_ value: String?, at index: Int) -> Self { setValue(value, at: index) }
    @discardableResult public func setInt(_ value: Int, at index: Int) -> Self { setValue(value, at: index) }
    @discardableResult public func setInt64(_ value: Int64, at index: Int) -> Self { setValue(value, at: index) }
    @discardableResult public func setDouble(_ value: Double, at index: Int) -> Self { setValue(value, at: index) }
    @discardableResult public func setFloat(_ value: Float, at index: Int) -> Self { setValue(value, at: index) }
    @discardableResult public func setBoolean(_ value: Bool, at index: Int) -> Self { setValue(value, at: index) }
    @discardableResult public func setDate(_ value: Date?, at index: Int) -> Self { setValue(value, at: index) }
    @discardableResult public func setDictionary(_ value: DictionaryObject?, at index: Int) -> Self {
        guard let mutable = value as? MutableDictionaryObject else { return setValue(value, at: index) }
        guard items.indices.contains(index) else { return outOfRange(index) }
        items[index] = .dictionary(mutable)
        return self
    }
    @discardableResult public func setArray(_ value: ArrayObject?, at index: Int) -> Self {
        guard let mutable = value as? MutableArrayObject else { return setValue(value, at: index) }
        guard items.indices.contains(index) else { return outOfRange(index) }
        items[index] = .array(mutable)
        return self
    }
    @discardableResult public func setBlob(_ value: Blob?, at index: Int) -> Self { setValue(value, at: index) }
    @discardableResult public func addBlob(_ value: Blob?) -> Self { addValue(value) }
    @discardableResult public func addString(_ value: String?) -> Self { addValue(value) }
    @discardableResult public func addInt(_ value: Int) -> Self { addValue(value) }
    @discardableResult public func addInt64(_ value: Int64) -> Self { addValue(value) }
    @discardableResult public func addDouble(_ value: Double) -> Self { addValue(value) }
    @discardableResult public func addFloat(_ value: Float) -> Self { addValue(value) }
    @discardableResult public func addBoolean(_ value: Bool) -> Self { addValue(value) }
    @discardableResult public func addDate(_ value: Date?) -> Self { addValue(value) }
    @discardableResult public func addDictionary(_ value: DictionaryObject?) -> Self {
        guard let mutable = value as? MutableDictionaryObject else { return addValue(value) }
        items.append(.dictionary(mutable))
        return self
    }
    @discardableResult public func addArray(_ value: ArrayObject?) -> Self {
        guard let mutable = value as? MutableArrayObject else { return addValue(value) }
        items.append(.array(mutable))
        return self
    }

    /// Replaces every item with those of `data`.
    @discardableResult public func setData(_ data: [Any]) -> Self {
        items = []
        invalidEdit = nil
        for value in data { addValue(value) }
        return self
    }

    /// Replaces every item with those of a JSON array. `MALFORMED_JSON` for text that is
    /// not JSON, `INVALID_ARGUMENT` for JSON that is not an array; nothing changes then.
    @discardableResult public func setJSON(_ json: String) throws(AccordError) -> Self {
        guard case .array(let values) = try AnyValue(jsonText: json) else {
            throw AccordError(.invalidArgument, "the JSON of an array must be an array")
        }
        items = values.map { Property.stored($0, mutable: true) }
        invalidEdit = nil
        return self
    }

    private func edit(_ value: Any?, at index: Int, _ apply: (Property) -> Void) -> Self {
        switch PropertyInput.property(value, key: "[\(index)]") {
        case .success(let property): apply(property)
        case .failure(let error): if invalidEdit == nil { invalidEdit = error }
        }
        return self
    }

    private func outOfRange(_ index: Int) -> Self {
        if invalidEdit == nil {
            invalidEdit = AccordError(
                .invalidValue, "array index \(index) is outside the array (\(items.count) items)",
                details: ["index": String(index)])
        }
        return self
    }
}
