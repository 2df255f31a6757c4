import AccordCRDT
public import AccordStore
public import Foundation

/// Binary content set as a document property: stored in the database's blob store (by
/// SHA-256) when the document is saved, and in the document as Couchbase Lite's blob
/// dictionary `{"@type": "blob", "content_type": ..., "digest": "sha256-<hex>", "length": N}`.
///
/// Reads are verified: content whose bytes no longer match the digest is
/// `STORAGE_CORRUPT` from ``readContent()`` (and nil from ``content``), never wrong bytes.
public final class Blob {
    public let contentType: String
    /// The content's size in bytes.
    public private(set) var length: UInt64
    /// `sha256-<hex>` once the blob is stored (after its document's save, or read from a
    /// saved document); nil before.
    public private(set) var digest: String?

    enum Source {
        case data(Data)
        case file(URL)
        case stored(BlobHash, BlobStore?)
    }
    private(set) var source: Source

    static let typeKey = "@type"
    static let typeValue = "blob"
    static let digestPrefix = "sha256-"

    /// A blob of in-memory bytes.
    public init(contentType: String, data: Data) {
        self.contentType = contentType
        length = UInt64(data.count)
        source = .data(data)
    }

    /// A blob of a file's content, read (streamed) when its document is saved.
    /// `IO_ERROR` when the file cannot be read now.
    public init(contentType: String, fileURL: URL) throws(AccordError) {
        self.contentType = contentType
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: fileURL.path),
            let size = attributes[.size] as? NSNumber,
            FileManager.default.isReadableFile(atPath: fileURL.path)
        else {
            throw AccordError(.ioError, "cannot read \(fileURL.path)", details: ["path": fileURL.path])
        }
        length = size.uint64Value
        source = .file(fileURL)
    }

    /// A blob a saved document refers to; nil when `object` is not a blob dictionary.
    init?(stored object: OrderedObject, store: BlobStore?) {
        guard object[Self.typeKey] == .string(Self.typeValue), case .string(let digest)? = object["digest"],
            digest.hasPrefix(Self.digestPrefix),
            let hash = try? BlobHash(hex: String(digest.dropFirst(Self.digestPrefix.count)))
        else { return nil }
        contentType = object["content_type"]?.stringValue ?? "application/octet-stream"
        length = UInt64(max(0, object["length"]?.intValue ?? 0))
        self.digest = digest
        source = .stored(hash, store)
    }

    /// Whether `properties` are a blob's (a dictionary with `"@type": "blob"` and a digest).
    public static func isBlob(properties: [String: Any]) -> Bool {
        properties[typeKey] as? String == typeValue && properties["digest"] is String
    }

    /// The content, verified; nil when it cannot be read (see ``readContent()`` for why).
    public var content: Data? { try? readContent() }

    /// The content, verified against the digest (`STORAGE_CORRUPT` when it does not
    /// match, `BLOB_NOT_FOUND` when the store lacks it, `IO_ERROR` for an unreadable file).
    /// Held in memory whole: stream large content with ``contentStream``.
    public func readContent() throws(AccordError) -> Data {
        switch source {
        case .data(let data):
            return data
        case .file(let url):
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw AccordError(.ioError, "cannot read \(url.path)", details: ["path": url.path])
            }
            return data
        case .stored(let hash, let store):
            guard let store else {
                throw AccordError(.blobNotFound, "the blob \(hash) belongs to a closed database", details: ["blob": hash.hex])
            }
            return Data(try store.get(hash))
        }
    }

    /// A stream of the content (the file itself for a blob made from one).
    public var contentStream: InputStream? {
        switch source {
        case .data(let data): return InputStream(data: data)
        case .file(let url): return InputStream(url: url)
        case .stored: return content.map { InputStream(data: $0) }
        }
    }

    /// The blob dictionary as stored in the document (no digest before it is stored).
    public var properties: [String: Any] { json.objectValue?.dictionary.mapValues(\.plainJSON) ?? [:] }

    /// The blob dictionary as JSON text.
    public func toJSON() -> String { json.jsonText }

    var json: AnyValue {
        var entries: [(String, AnyValue)] = [
            (Self.typeKey, .string(Self.typeValue)), ("content_type", .string(contentType)),
        ]
        if let digest { entries.append(("digest", .string(digest))) }
        entries.append(("length", .int(Int64(clamping: length))))
        return .object(OrderedObject(entries))
    }

    /// Puts the content into `store` (referenced by the collection's store document, so
    /// garbage collection keeps it) unless it is stored already.
    func store(into store: BlobStore, referencedBy document: DocumentID) throws(AccordError) {
        let info: BlobInfo
        switch source {
        case .stored(let hash, nil):
            source = .stored(hash, store)
            return
        case .stored:
            return
        case .data(let data):
            info = try store.put(Array(data), contentType: contentType, referencedBy: document)
        case .file(let url):
            info = try store.put(contentsOfFile: url.path, contentType: contentType, referencedBy: document)
        }
        length = UInt64(info.size)
        digest = Self.digestPrefix + info.hash.hex
        source = .stored(info.hash, store)
    }
}

extension AnyValue {
    /// The value as plain Swift (for a blob's `properties`).
    var plainJSON: Any {
        switch self {
        case .string(let s): return s
        case .int(let i): return Int(i)
        case .double(let d): return d
        case .bool(let b): return b
        default: return NSNull()
        }
    }
}
