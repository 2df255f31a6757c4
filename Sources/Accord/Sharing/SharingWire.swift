import AccordCRDT
import Foundation

/// The REST API's JSON shapes (`docs/server-api.md`) and their decoding into the
/// public types. A body that does not decode is `UNEXPECTED_RESPONSE`.
enum SharingWire {
    struct Document: Decodable {
        var id: String
        var title: String
        var tags: [String]
        var created: String
        var updated: String
        var size: Int
        var permission: DocumentPermission
        var owner: String
        var thumbnailBlobId: String?
        var grantedBy: String?
        var source: String?
    }

    struct Permissions: Decodable {
        var owner: String
        var members: [String: DocumentPermission]
        var linkAccess: DocumentPermission?
    }

    struct Link: Decodable {
        var linkAccess: DocumentPermission?
        var changedBy: String?
        var changedAt: String?
    }

    private static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func decode<Shape: Decodable>(_ shape: Shape.Type, _ body: [UInt8]) throws(AccordError) -> Shape {
        do {
            return try JSONDecoder().decode(shape, from: Data(body))
        } catch {
            throw AccordError(
                .unexpectedResponse, "the server's answer is not the expected JSON: \(error)",
                details: ["shape": String(describing: shape)])
        }
    }

    static func date(_ text: String) throws(AccordError) -> Date {
        guard let date = try? dateStyle.parse(text) else {
            throw AccordError(.unexpectedResponse, "the server sent a date that is not ISO 8601: \(text)")
        }
        return date
    }

    static func info(_ body: [UInt8]) throws(AccordError) -> DocumentInfo {
        let wire = try decode(Document.self, body)
        // Metadata is any JSON: read it with the engine's own JSON reader.
        var metadata: AnyValue?
        if case .object(let fields) = try AnyValue(jsonText: String(decoding: body, as: UTF8.self)),
            let value = fields.dictionary["metadata"], value != .null {
            metadata = value
        }
        return DocumentInfo(
            id: try DocumentID(validating: wire.id), title: wire.title, tags: wire.tags, created: try date(wire.created),
            updated: try date(wire.updated), size: wire.size, permission: wire.permission, owner: wire.owner,
            metadata: metadata, thumbnailBlobID: wire.thumbnailBlobId, grantedBy: wire.grantedBy, source: wire.source)
    }

    /// `{"created": bool, "document": {...}}`.
    static func aliased(_ body: [UInt8]) throws(AccordError) -> AliasedDocument {
        struct Created: Decodable { var created: Bool }
        let created = try decode(Created.self, body).created
        guard case .object(let fields) = try AnyValue(jsonText: String(decoding: body, as: UTF8.self)),
            let document = fields.dictionary["document"]
        else {
            throw AccordError(.unexpectedResponse, "the server's alias answer has no document")
        }
        return AliasedDocument(document: try info(Array(document.jsonText.utf8)), created: created)
    }

    /// `{"documents": [...], "nextCursor": string|null}`.
    static func page(_ body: [UInt8]) throws(AccordError) -> DocumentPage {
        guard case .object(let fields) = try AnyValue(jsonText: String(decoding: body, as: UTF8.self)),
            case .array(let documents)? = fields.dictionary["documents"]
        else {
            throw AccordError(.unexpectedResponse, "the server's page has no documents")
        }
        var infos: [DocumentInfo] = []
        for document in documents { infos.append(try info(Array(document.jsonText.utf8))) }
        return DocumentPage(documents: infos, nextCursor: fields.dictionary["nextCursor"]?.stringValue)
    }

    static func permissions(_ body: [UInt8]) throws(AccordError) -> DocumentPermissions {
        let wire = try decode(Permissions.self, body)
        return DocumentPermissions(owner: wire.owner, members: wire.members, linkAccess: wire.linkAccess)
    }

    static func linkAccess(_ body: [UInt8]) throws(AccordError) -> LinkAccess {
        let wire = try decode(Link.self, body)
        return LinkAccess(level: wire.linkAccess, changedBy: wire.changedBy, changedAt: try wire.changedAt.map(date))
    }

    /// A JSON object of any values, as compact JSON.
    static func body(_ fields: OrderedObject) -> [UInt8] {
        Array(AnyValue.object(fields).jsonText.utf8)
    }

    /// A JSON object of strings.
    static func body(_ fields: [String: String]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array((try? encoder.encode(fields)) ?? Data("{}".utf8))
    }
}
