import AccordCRDT
import Foundation

/// The REST API's JSON shapes (`docs/server-api.md`) and their decoding into the
/// public types. A body that does not decode is `UNEXPECTED_RESPONSE`.
enum SharingWire {
    struct Permissions: Decodable {
        var owner: String
        var members: [String: DocumentPermission]
        var linkAccess: DocumentPermission?
        var groups: [String: DocumentPermission]?
        var invitations: [String: DocumentPermission]?
    }

    struct Invitations: Decodable {
        struct Invitation: Decodable {
            var email: String
            var role: DocumentPermission
            var invitedBy: String
            var invitedAt: String
        }
        var invitations: [Invitation]
    }

    struct Link: Decodable {
        var linkAccess: DocumentPermission?
        var changedBy: String?
        var changedAt: String?
    }

    static func decode<Shape: Decodable>(_ shape: Shape.Type, _ body: [UInt8]) throws(AccordError) -> Shape {
        do {
            return try JSONDecoder().decode(shape, from: Data(body))
        } catch {
            throw AccordError(
                .unexpectedResponse, "the server's answer is not the expected JSON: \(error)",
                details: ["shape": String(describing: shape)])
        }
    }

    static func date(_ text: String) throws(AccordError) -> Date { try DocumentInfo.date(text) }

    static func info(_ body: [UInt8]) throws(AccordError) -> DocumentInfo { try DocumentInfo(json: body) }

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
        let (documents, nextCursor) = try DocumentPageJSON.split(body)
        var infos: [DocumentInfo] = []
        for document in documents { infos.append(try info(document)) }
        return DocumentPage(documents: infos, nextCursor: nextCursor)
    }

    static func permissions(_ body: [UInt8]) throws(AccordError) -> DocumentPermissions {
        let wire = try decode(Permissions.self, body)
        return DocumentPermissions(
            owner: wire.owner, members: wire.members, linkAccess: wire.linkAccess, groups: wire.groups ?? [:],
            invitations: wire.invitations ?? [:])
    }

    static func invitations(_ body: [UInt8]) throws(AccordError) -> [InvitationInfo] {
        var result: [InvitationInfo] = []
        for invitation in try decode(Invitations.self, body).invitations {
            result.append(
                InvitationInfo(
                    email: invitation.email, permission: invitation.role, invitedBy: invitation.invitedBy,
                    invitedAt: try date(invitation.invitedAt)))
        }
        return result
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
