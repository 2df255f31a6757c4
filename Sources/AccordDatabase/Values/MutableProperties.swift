public import Foundation
public import AccordCRDT
import AccordStore

/// The chained setters shared by ``MutableDocument`` and ``MutableDictionaryObject``.
/// Each returns the container, so calls chain: `doc.setString("Ann", forKey: "name").setInt(3, forKey: "n")`.
///
/// Setters cannot throw (so they chain); a value JSON cannot hold (NaN, an infinity, a
/// type the database does not store) is remembered, and the next `save` refuses the
/// document with `INVALID_VALUE` naming the key, writing nothing.
public protocol MutableProperties: PropertyContainer {}

extension MutableProperties {
    @discardableResult public func setValue(_ value: Any?, forKey key: String) -> Self {
        switch PropertyInput.property(value, key: key) {
        case .success(let property): properties[key] = property
        case .failure(let error): remember(error)
        }
        return self
    }
    @discardableResult public func setString(_ value: String?, forKey key: String) -> Self {
        properties[key] = .scalar(value.map(AnyValue.string) ?? .null)
        return self
    }
    @discardableResult public func setInt(_ value: Int, forKey key: String) -> Self {
        properties[key] = .scalar(NumberConversion.stored(Int64(value)))
        return self
    }
    @discardableResult public func setInt64(_ value: Int64, forKey key: String) -> Self {
        properties[key] = .scalar(NumberConversion.stored(value))
        return self
    }
    @discardableResult public func setDouble(_ value: Double, forKey key: String) -> Self { setValue(value, forKey: key) }
    @discardableResult public func setFloat(_ value: Float, forKey key: String) -> Self { setValue(value, forKey: key) }
    @discardableResult public func setBoolean(_ value: Bool, forKey key: String) -> Self {
        properties[key] = .scalar(.bool(value))
        return self
    }
    /// Stores the date as `YYYY-MM-DDTHH:MM:SS.sssZ`, rounded down to the millisecond.
    @discardableResult public func setDate(_ value: Date?, forKey key: String) -> Self { setValue(value, forKey: key) }
    /// Sets a dictionary: a mutable one is stored as is (later edits to it show), any
    /// other is copied.
    @discardableResult public func setDictionary(_ value: DictionaryObject?, forKey key: String) -> Self {
        if let mutable = value as? MutableDictionaryObject {
            properties[key] = .dictionary(mutable)
            return self
        }
        return setValue(value, forKey: key)
    }
    /// Sets an array: a mutable one is stored as is (later edits to it show), any other is copied.
    @discardableResult public func setArray(_ value: ArrayObject?, forKey key: String) -> Self {
        if let mutable = value as? MutableArrayObject {
            properties[key] = .array(mutable)
            return self
        }
        return setValue(value, forKey: key)
    }
    /// Sets a blob, stored in the blob store when the document is saved.
    @discardableResult public func setBlob(_ value: Blob?, forKey key: String) -> Self {
        properties[key] = value.map(Property.blob) ?? .scalar(.null)
        return self
    }
    @discardableResult public func removeValue(forKey key: String) -> Self {
        properties[key] = nil
        return self
    }
    /// Replaces every property with those of `data`.
    @discardableResult public func setData(_ data: [String: Any]) -> Self {
        properties = [:]
        invalidEdit = nil
        for (key, value) in data { setValue(value, forKey: key) }
        return self
    }
    /// Replaces every property with those of a JSON object. `MALFORMED_JSON` for text
    /// that is not JSON, `INVALID_ARGUMENT` for JSON that is not an object; the
    /// properties stay as they were either way.
    @discardableResult public func setJSON(_ json: String) throws(AccordError) -> Self {
        let value = try AnyValue(jsonText: json)
        guard case .object(let object) = value else {
            throw AccordError(.invalidArgument, "the JSON of a document or dictionary must be an object")
        }
        setStored(object, mutable: true, blobs: nil)
        invalidEdit = nil
        return self
    }

    func remember(_ error: AccordError) {
        if invalidEdit == nil { invalidEdit = error }
    }
}

/// A dictionary that can be edited: nested in a ``MutableDocument`` (live: edits show in
/// the document) or built on its own and set into one.
public final class MutableDictionaryObject: DictionaryObject, MutableProperties {
    public init() { super.init(properties: [:]) }

    /// A dictionary holding `data` (see ``MutableProperties/setValue(_:forKey:)`` for the types).
    public convenience init(data: [String: Any]) {
        self.init()
        setData(data)
    }

    /// A dictionary holding a JSON object.
    public convenience init(json: String) throws(AccordError) {
        self.init()
        try setJSON(json)
    }

    override init(stored object: OrderedObject, blobs: BlobStore? = nil) {
        super.init(stored: object, mutable: true, blobs: blobs)
    }

    override init(properties: [String: Property]) {
        super.init(properties: properties)
    }

    /// The nested dictionary, itself mutable and live.
    public override func dictionary(forKey key: String) -> MutableDictionaryObject? {
        super.dictionary(forKey: key) as? MutableDictionaryObject
    }

    /// The nested array, itself mutable and live.
    public override func array(forKey key: String) -> MutableArrayObject? {
        super.array(forKey: key) as? MutableArrayObject
    }
}
