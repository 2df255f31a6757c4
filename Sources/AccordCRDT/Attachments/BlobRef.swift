/// An attachment value: a reference to binary content by its SHA-256, stored in a
/// document wherever the app wants it (a map entry, an array element, a record field,
/// inside a JSON value), as plain JSON so Yjs peers read it too:
///
/// ```json
/// {"$blob": "<64 lowercase hex digits>", "size": 1234, "contentType": "image/png", "name": "photo.png"}
/// ```
///
/// (Named `BlobRef`, not `Blob`: `import Accord` also brings AccordDatabase's `Blob`,
/// the Couchbase-style blob property, and `Attachment` is swift-testing's; a value of
/// this type is a reference to content, which is what the name says.)
///
/// `name` is optional; a value without `contentType` reads as `application/octet-stream`.
/// The same keys in a nested map (`YMap`) form an attachment too. The content itself
/// travels beside the document (`docs/blobs.md`); `AccordStore` adds the constructors
/// that hash bytes or a file (`BlobRef(contentType:data:)`, `BlobRef(contentType:fileURL:)`).
public struct BlobRef: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The SHA-256 of the content, 64 lowercase hex digits.
    public let hash: String
    /// The content's length in bytes.
    public let size: Int64
    public let contentType: String
    /// A file name for people (optional, never used to find the content).
    public let name: String?

    public static let key = "$blob"
    public static let defaultContentType = "application/octet-stream"

    /// A reference from its parts. The hash may be given in either case (it is kept in
    /// lower case); anything but 64 hex digits, a negative size, or a content type that
    /// is not 1 to 255 printable ASCII characters is `INVALID_ARGUMENT`.
    public init(hash: String, size: Int64, contentType: String = BlobRef.defaultContentType, name: String? = nil)
        throws(AccordError)
    {
        guard let normalized = Self.normalizedHash(hash) else {
            throw AccordError(
                .invalidArgument, "a blob hash is 64 hex digits", details: ["hash": String(hash.prefix(80))])
        }
        guard size >= 0 else {
            throw AccordError(.invalidArgument, "a blob size is not negative", details: ["size": String(size)])
        }
        guard Self.isValidContentType(contentType) else {
            throw AccordError(
                .invalidArgument, "a blob content type is 1 to 255 printable ASCII characters",
                details: ["content_type": String(contentType.prefix(80))])
        }
        self.hash = normalized
        self.size = size
        self.contentType = contentType
        self.name = name
    }

    /// Reads an attachment value; nil when `value` is not one (not an object, no valid
    /// `$blob` hash, no non-negative integer `size`, a `contentType` or `name` that is
    /// not a string, or a content type that is not valid).
    public init?(_ value: AnyValue) {
        guard case .object(let object) = value else { return nil }
        self.init(fields: { object[$0] })
    }

    /// Reads the attachment fields of an object, however it is held (a plain value or
    /// the entries of a shared map).
    init?(fields: (String) -> AnyValue?) {
        guard case .string(let hex)? = fields(Self.key), let normalized = Self.normalizedHash(hex) else { return nil }
        guard case .int(let size)? = fields("size"), size >= 0 else { return nil }
        var contentType = Self.defaultContentType
        switch fields("contentType") {
        case nil, .null?, .undefined?: break
        case .string(let given)? where Self.isValidContentType(given): contentType = given
        default: return nil
        }
        var name: String?
        switch fields("name") {
        case nil, .null?, .undefined?: break
        case .string(let given)?: name = given
        default: return nil
        }
        self.hash = normalized
        self.size = size
        self.contentType = contentType
        self.name = name
    }

    /// Whether `value` is an attachment value (see ``init(_:)``).
    public static func isBlob(_ value: AnyValue) -> Bool { BlobRef(value) != nil }

    /// Whether `value` is an attachment: a plain attachment value, or a map whose
    /// entries form one.
    public static func isBlob(_ value: YValue) -> Bool {
        switch value {
        case .value(let plain): isBlob(plain)
        case .map(let map): BlobRef(map: map) != nil
        default: false
        }
    }

    /// Reads the attachment a map's entries form, or nil.
    public init?(map: YMap) {
        self.init(fields: { key in map.get(key)?.value })
    }

    /// The JSON value to store in a document.
    public func toJSON() -> AnyValue {
        var entries: [(String, AnyValue)] = [
            (Self.key, .string(hash)), ("size", .int(size)), ("contentType", .string(contentType)),
        ]
        if let name { entries.append(("name", .string(name))) }
        return .object(OrderedObject(entries))
    }

    public var description: String { "blob \(hash) (\(size) bytes, \(contentType))" }

    /// By hash, then the other fields, so sorted lists are stable.
    public static func < (a: BlobRef, b: BlobRef) -> Bool {
        if a.hash != b.hash { return a.hash < b.hash }
        if a.size != b.size { return a.size < b.size }
        if a.contentType != b.contentType { return a.contentType < b.contentType }
        return (a.name ?? "") < (b.name ?? "")
    }

    static func normalizedHash(_ text: String) -> String? {
        let digits = Array(text.utf8)
        guard digits.count == 64 else { return nil }
        var lowered: [UInt8] = []
        lowered.reserveCapacity(64)
        for c in digits {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): lowered.append(c)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): lowered.append(c + 32)
            default: return nil
            }
        }
        return String(decoding: lowered, as: UTF8.self)
    }

    /// The rule the blob stores apply: printable ASCII, 1 to 255 bytes.
    static func isValidContentType(_ text: String) -> Bool {
        (1...255).contains(text.utf8.count) && text.utf8.allSatisfy { (0x20...0x7e).contains($0) }
    }
}
