import AccordCRDT
import AccordRecords
import AccordStore
import Foundation

/// An export bundle on disk (layout in docs/operations.md):
///
/// ```
/// manifest.json                       export-all only: version, exportedAt, documentCount, documents
/// documents/<id>/metadata.json        documentId, title, tags, createdAt, createdBy, aliases
/// documents/<id>/permissions.json     [{user, permission, grantedAt, status}], for reference
/// documents/<id>/document.yjs         the full state, one Yjs update v1
/// documents/<id>/blobs/index.json     [{blobId, filename, contentType, sha256 (base64), numBytes}]
/// documents/<id>/blobs/<blob-id>.bin
/// documents/<id>/records-schema.json  the document's records models, when registered
/// ```
///
/// `<id>` is the document id with `%` and `/` percent-encoded, so every id is one
/// directory name.
enum Bundle {
    static let version = 1

    static func directoryName(_ id: String) -> String {
        id.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "/", with: "%2F")
    }

    static func documentID(directoryName name: String) -> String {
        name.replacingOccurrences(of: "%2F", with: "/").replacingOccurrences(of: "%25", with: "%")
    }

    /// One document as read from a bundle, checked. The state stays in its file
    /// (``updatePath``) until the document is imported, so checking a bundle holds one
    /// document's state at a time, not the whole bundle.
    struct Document {
        var id: String
        var metadata: AnyValue
        var updatePath: String
        var aliases: [String]
        /// `records-schema.json`: the document's records models, when it had any.
        var recordsSchema: AnyValue?
        /// The blobs of `blobs/index.json`, checked: hex SHA-256, content type, file.
        var blobs: [Blob] = []
    }

    struct Blob {
        var hash: String
        var contentType: String
        var path: String
    }

    /// Reads and checks every document of the bundle at `root`; the first fault is
    /// `INVALID_ARGUMENT` naming the document and the file (and nothing is imported).
    static func read(_ root: String) throws(AccordError) -> [Document] {
        let documents = root + "/documents"
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: documents).sorted()
        } catch {
            throw refused(root, "no documents/ directory")
        }
        var read: [Document] = []
        for name in names where !name.hasPrefix(".") {
            read.append(try document(documents + "/" + name, id: documentID(directoryName: name)))
        }
        if FileManager.default.fileExists(atPath: root + "/manifest.json") {
            let manifest = try json(root + "/manifest.json", document: "manifest")
            guard case .object(let fields) = manifest, case .array(let listed)? = fields["documents"] else {
                throw refused("manifest.json", "expected {\"documents\": [...]}")
            }
            let ids = listed.compactMap { value -> String? in if case .string(let id) = value { id } else { nil } }
            guard ids.sorted() == read.map(\.id).sorted() else {
                throw refused("manifest.json", "lists \(ids.count) documents; documents/ holds \(read.count) others")
            }
        }
        return read
    }

    private static func document(_ directory: String, id: String) throws(AccordError) -> Document {
        let metadata = try json(directory + "/metadata.json", document: id)
        guard case .object(let fields) = metadata, fields["documentId"] == .string(id) else {
            throw refused("\(id)/metadata.json", "documentId does not name \(id)")
        }
        // The server restores createdAt: a time it cannot read would refuse this one
        // document after others were imported, so it is checked with the rest.
        if let createdAt = fields["createdAt"], createdAt != .null {
            guard case .string(let text) = createdAt, isoTime(text) else {
                throw refused("\(id)/metadata.json", "createdAt is not an ISO 8601 time")
            }
        }
        var aliases: [String] = []
        if case .array(let list)? = fields["aliases"] {
            aliases = list.compactMap { value -> String? in if case .string(let alias) = value { alias } else { nil } }
        }
        guard case .array = try json(directory + "/permissions.json", document: id) else {
            throw refused("\(id)/permissions.json", "expected an array")
        }
        let updatePath = directory + "/document.yjs"
        try checkUpdate(try bytes(updatePath, document: id), document: id)
        let blobs = try checkBlobs(directory + "/blobs", id: id)
        var schema: AnyValue?
        if FileManager.default.fileExists(atPath: directory + "/records-schema.json") {
            let models = try json(directory + "/records-schema.json", document: id)
            do {
                _ = try ModelSchema.models(json: models)
            } catch {
                throw refused("\(id)/records-schema.json", error.message)
            }
            schema = models
        }
        return Document(id: id, metadata: metadata, updatePath: updatePath, aliases: aliases, recordsSchema: schema, blobs: blobs)
    }

    /// Refuses a `document.yjs` that does not decode as a Yjs update v1.
    private static func checkUpdate(_ update: [UInt8], document id: String) throws(AccordError) {
        do {
            _ = try encodeStateVectorFromUpdate(update)
        } catch {
            throw refused("\(id)/document.yjs", "not a Yjs update v1: \(error.message)")
        }
    }

    /// Whether `text` is an ISO 8601 time as the server reads it (fractional seconds optional).
    private static func isoTime(_ text: String) -> Bool {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)) != nil
            || (try? Date.ISO8601FormatStyle().parse(text)) != nil
    }

    /// Every blob the index names is present with its size and SHA-256 (read in pieces,
    /// never whole). No index: no blobs.
    private static func checkBlobs(_ directory: String, id: String) throws(AccordError) -> [Blob] {
        guard FileManager.default.fileExists(atPath: directory + "/index.json") else { return [] }
        guard case .array(let entries) = try json(directory + "/index.json", document: id) else {
            throw refused("\(id)/blobs/index.json", "expected an array")
        }
        var blobs: [Blob] = []
        for entry in entries {
            guard case .object(let blob) = entry, case .string(let blobID)? = blob["blobId"],
                  case .string(let sha256)? = blob["sha256"], case .int(let size)? = blob["numBytes"],
                  !blobID.contains("/"), !blobID.hasPrefix(".")
            else {
                throw refused("\(id)/blobs/index.json", "an entry lacks blobId, sha256 or numBytes")
            }
            let path = directory + "/\(blobID).bin"
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            guard let length = (attributes?[.size] as? NSNumber)?.int64Value else {
                throw refused("\(id)/blobs/\(blobID).bin", "missing or unreadable")
            }
            let digest = try Self.sha256(file: path)
            guard length == size, Data(digest).base64EncodedString() == sha256 else {
                throw refused("\(id)/blobs/\(blobID).bin", "its size or SHA-256 does not match blobs/index.json")
            }
            var contentType = "application/octet-stream"
            if case .string(let type)? = blob["contentType"], !type.isEmpty { contentType = type }
            blobs.append(Blob(hash: HexText.encode(digest), contentType: contentType, path: path))
        }
        return blobs
    }

    /// The SHA-256 of a file, read 1 MiB at a time.
    static func sha256(file path: String) throws(AccordError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw AccordError(.ioError, "cannot read \(path)", details: ["path": path])
        }
        defer { try? handle.close() }
        var hasher = try SHA256Hasher()
        while true {
            let data: Data?
            do {
                data = try handle.read(upToCount: 1 << 20)
            } catch {
                throw AccordError(.ioError, "cannot read \(path): \(error)", details: ["path": path])
            }
            guard let data, !data.isEmpty else { break }
            data.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finish().bytes
    }

    static func bytes(_ path: String, document: String) throws(AccordError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw refused("\(document)/\((path as NSString).lastPathComponent)", "missing or unreadable")
        }
        return [UInt8](data)
    }

    private static func json(_ path: String, document: String) throws(AccordError) -> AnyValue {
        let text = String(decoding: try bytes(path, document: document), as: UTF8.self)
        do {
            return try AnyValue(jsonText: text)
        } catch {
            throw refused("\(document)/\((path as NSString).lastPathComponent)", "not JSON: \(error.message)")
        }
    }

    static func refused(_ what: String, _ why: String) -> AccordError {
        AccordError(.invalidArgument, "bundle refused, nothing imported: \(what): \(why)", details: ["input": what])
    }

    /// Writes `content` to `path`, creating its directory.
    static func write(_ content: [UInt8], to path: String) throws(AccordError) {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(content).write(to: URL(fileURLWithPath: path))
        } catch {
            throw AccordError(.ioError, "cannot write \(path): \(error)", details: ["path": path])
        }
    }
}
