import Foundation
import AccordCRDT
import AccordStore

/// `metadata.json` of a document in an export bundle: `{"documentId", "title", "tags",
/// "createdAt", "createdBy", "aliases"}` (aliases: empty until the server has them).
struct BundleMetadata {
    var documentID: String
    var title: String
    var tags: [String]
    var createdAt: String?
    var createdBy: String?
    var aliases: [String]

    private static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    init(_ metadata: DocumentMetadata, owner: String?) {
        documentID = metadata.id.rawValue
        title = metadata.title
        tags = metadata.tags
        // The store keeps seconds as a Double, which can land a hair below the
        // millisecond it was given; the style truncates, so round to the millisecond
        // first (a restored createdAt exports as the text it was imported from).
        let milliseconds = (metadata.created.timeIntervalSince1970 * 1000).rounded()
        createdAt = Self.dateStyle.format(Date(timeIntervalSince1970: (milliseconds + 0.25) / 1000))
        createdBy = owner
        aliases = []
    }

    /// Reads the JSON form; `INVALID_ARGUMENT` naming the key for the wrong shape.
    init(json: AnyValue) throws(AccordError) {
        guard case .object(let fields) = json else { throw Self.invalid("metadata", "expected an object") }
        guard case .string(let id)? = fields["documentId"] else { throw Self.invalid("documentId", "expected a string") }
        documentID = id
        if case .string(let text)? = fields["title"] { title = text } else { title = "" }
        tags = try Self.strings(fields["tags"], "tags")
        aliases = try Self.strings(fields["aliases"], "aliases")
        if case .string(let text)? = fields["createdAt"] { createdAt = text } else { createdAt = nil }
        if case .string(let text)? = fields["createdBy"] { createdBy = text } else { createdBy = nil }
    }

    /// `createdAt` as a date (ISO 8601, with or without fractional seconds); nil when
    /// the bundle has none. `INVALID_ARGUMENT` naming `metadata.createdAt` when it is
    /// not such a time, so a bad bundle is refused before anything is created.
    func createdDate() throws(AccordError) -> Date? {
        guard let createdAt else { return nil }
        if let date = try? Self.dateStyle.parse(createdAt) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(createdAt) { return date }
        throw Self.invalid("createdAt", "expected an ISO 8601 time such as 2026-01-31T12:00:00.000Z")
    }

    var json: AnyValue {
        .object(OrderedObject([
            ("documentId", .string(documentID)), ("title", .string(title)), ("tags", .array(tags.map { .string($0) })),
            ("createdAt", createdAt.map { .string($0) } ?? .null), ("createdBy", createdBy.map { .string($0) } ?? .null),
            ("aliases", .array(aliases.map { .string($0) })),
        ]))
    }

    private static func strings(_ value: AnyValue?, _ key: String) throws(AccordError) -> [String] {
        guard let value, value != .null else { return [] }
        guard case .array(let elements) = value else { throw invalid(key, "expected an array of strings") }
        var out: [String] = []
        for element in elements {
            guard case .string(let text) = element else { throw invalid(key, "expected an array of strings") }
            out.append(text)
        }
        return out
    }

    private static func invalid(_ key: String, _ message: String) -> AccordError {
        AccordError(.invalidArgument, "metadata.\(key): \(message)", details: ["field": "metadata.\(key)"])
    }
}
