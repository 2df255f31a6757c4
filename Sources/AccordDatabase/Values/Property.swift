import AccordCRDT
import AccordStore
import Foundation

/// One property value of a document, dictionary or array, as the typed accessors see it:
/// a JSON scalar, or a nested object the container owns (so a mutable document's nested
/// dictionary is one live object that edits go through).
enum Property {
    /// `null`, a boolean, a number or a string.
    case scalar(AnyValue)
    case dictionary(DictionaryObject)
    case array(ArrayObject)
    case blob(Blob)

    /// How deep documents may nest: deeper content (or a dictionary set inside itself)
    /// is refused at save with `INVALID_VALUE` instead of overflowing the stack.
    static let maximumDepth = 64

    /// The property for stored JSON; nested objects are mutable ones when `mutable`. A
    /// blob dictionary is a ``Blob`` reading from `blobs`.
    static func stored(_ value: AnyValue, mutable: Bool, blobs: BlobStore? = nil) -> Property {
        switch value {
        case .object(let object):
            if let blob = Blob(stored: object, store: blobs) { return .blob(blob) }
            return .dictionary(
                mutable
                    ? MutableDictionaryObject(stored: object, blobs: blobs) : DictionaryObject(stored: object, blobs: blobs))
        case .array(let items):
            return .array(mutable ? MutableArrayObject(stored: items, blobs: blobs) : ArrayObject(stored: items, blobs: blobs))
        case .undefined:
            return .scalar(.null)
        default:
            return .scalar(value)
        }
    }

    /// The JSON value to store. Throws `INVALID_VALUE` for content nested deeper than
    /// ``maximumDepth`` or an invalid value a setter accepted (see ``PropertyContainer``).
    func json(depth: Int, key: String) throws(AccordError) -> AnyValue {
        guard depth < Self.maximumDepth else {
            throw AccordError(
                .invalidValue, "property \"\(key)\" nests deeper than \(Self.maximumDepth) levels",
                details: ["key": key])
        }
        switch self {
        case .scalar(let value): return value
        case .dictionary(let dictionary): return try dictionary.json(depth: depth + 1)
        case .array(let array): return try array.json(depth: depth + 1)
        case .blob(let blob): return blob.json
        }
    }

    /// The blobs not yet stored in this value (at most ``maximumDepth`` deep, so a
    /// dictionary set inside itself ends; the save then refuses it).
    func unsavedBlobs(depth: Int, into blobs: inout [Blob]) {
        guard depth < Self.maximumDepth else { return }
        switch self {
        case .scalar: return
        case .blob(let blob): if blob.digest == nil { blobs.append(blob) }
        case .dictionary(let dictionary):
            for property in dictionary.properties.values { property.unsavedBlobs(depth: depth + 1, into: &blobs) }
        case .array(let array):
            for item in array.items { item.unsavedBlobs(depth: depth + 1, into: &blobs) }
        }
    }

    /// A copy for a mutable container: nested objects copied into mutable ones, so an
    /// object set into two places (or taken from a read-only document) is never shared.
    func mutableCopy() -> Property {
        switch self {
        case .scalar, .blob: return self
        case .dictionary(let dictionary): return .dictionary(dictionary.toMutable())
        case .array(let array): return .array(array.toMutable())
        }
    }

    /// The plain Swift value `toDictionary()` and `toArray()` hand out: `String`, `Int`,
    /// `Double`, `Bool`, `NSNull`, `[String: Any]`, `[Any]`.
    var plainValue: Any {
        switch self {
        case .scalar(let value): return Self.plain(value)
        case .dictionary(let dictionary): return dictionary.toDictionary()
        case .array(let array): return array.toArray()
        case .blob(let blob): return blob
        }
    }

    /// The value `value(forKey:)` hands out: nested objects as ``DictionaryObject`` and
    /// ``ArrayObject``, scalars as plain values.
    var objectValue: Any {
        switch self {
        case .scalar(let value): return Self.plain(value)
        case .dictionary(let dictionary): return dictionary
        case .array(let array): return array
        case .blob(let blob): return blob
        }
    }

    private static func plain(_ value: AnyValue) -> Any {
        switch value {
        case .undefined, .null: return NSNull()
        case .bool(let b): return b
        case .int(let i): return Int(i)
        case .double(let d): return d
        case .string(let s): return s
        case .bytes(let bytes): return Data(bytes)
        case .array(let items): return items.map { plain($0) }
        case .object(let object): return object.dictionary.mapValues { plain($0) }
        }
    }
}
