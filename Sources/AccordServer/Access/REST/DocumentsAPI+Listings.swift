import Foundation
import AccordCRDT
import AccordNet
import AccordStore

extension DocumentsAPI {
    static let ownedPath = "/v1/me/documents"
    static let sharedPath = "/v1/me/shared"
    static let defaultPageSize = 50
    static let maxPageSize = 200

    /// `GET /v1/me/documents?tag=&limit=&cursor=`: the caller's own documents, oldest
    /// first, `limit` (1–200, default 50) per page. Answers
    /// `{"documents": [<document>], "nextCursor": string|null}`; pass `nextCursor` back
    /// for the next page. A cursor is opaque; one that is not ours is `INVALID_ARGUMENT`.
    func respondToOwned(_ request: HTTPRequest) -> HTTPResponse {
        do throws(AccordError) {
            let user = try authenticatedUser(request)
            let limit = try Self.pageSize(request.queryValue("limit"))
            let after = try request.queryValue("cursor").map(Self.decodeCursor) ?? 0
            let tag = request.queryValue("tag")
            let page = try directory.ownedDocuments(of: user, tag: tag, after: after, limit: limit)
            var bodies: [DocumentBody] = []
            for metadata in page.documents {
                let details = try directory.details(metadata.id)
                bodies.append(DocumentBody(metadata, permission: .owner, owner: user, details: details))
            }
            return RESTJSON.response(status: 200, PageBody(documents: bodies, nextCursor: page.next.map(Self.encodeCursor)))
        } catch {
            return RESTError.response(error)
        }
    }

    /// `GET /v1/me/shared?tag=&limit=&cursor=`: documents shared with the caller by a
    /// direct grant (not those reached only through link access), in the order they
    /// were first granted, each with `permission` (the caller's effective role),
    /// `grantedBy` (the owner) and `source` (`"direct"`). Same page shape and cursors
    /// as the owned listing.
    func respondToShared(_ request: HTTPRequest) -> HTTPResponse {
        do throws(AccordError) {
            let user = try authenticatedUser(request)
            let limit = try Self.pageSize(request.queryValue("limit"))
            let after = try request.queryValue("cursor").map(Self.decodeCursor) ?? 0
            let page = try directory.sharedDocuments(of: user, tag: request.queryValue("tag"), after: after, limit: limit)
            var bodies: [DocumentBody] = []
            let groups = try directory.access.groups.groups(of: user)
            for (metadata, access) in page.entries {
                guard let role = access.role(of: user, inGroups: groups) else { continue }
                var body = DocumentBody(metadata, permission: role, owner: access.owner, details: try directory.details(metadata.id))
                body.grantedBy = access.owner
                body.source = "direct"
                bodies.append(body)
            }
            return RESTJSON.response(status: 200, PageBody(documents: bodies, nextCursor: page.next.map(Self.encodeCursor)))
        } catch {
            return RESTError.response(error)
        }
    }

    static func pageSize(_ raw: String?) throws(AccordError) -> Int {
        guard let raw else { return defaultPageSize }
        guard let value = Int(raw), (1...maxPageSize).contains(value) else {
            throw AccordError(.invalidArgument, "limit is 1 to \(maxPageSize)", details: ["field": "limit"])
        }
        return value
    }

    /// Cursors are `o1.<sequence>` in base64url: opaque to clients, versioned for us.
    static func encodeCursor(_ sequence: UInt64) -> String {
        Data("o1.\(sequence)".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decodeCursor(_ cursor: String) throws(AccordError) -> UInt64 {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard cursor.utf8.count <= 64, let data = Data(base64Encoded: base64),
            let text = String(data: data, encoding: .utf8), text.hasPrefix("o1."),
            let sequence = UInt64(text.dropFirst(3))
        else {
            throw AccordError(.invalidArgument, "not a cursor this server gave out", details: ["field": "cursor"])
        }
        return sequence
    }
}

/// A page of a listing.
struct PageBody: Encodable {
    var documents: [DocumentBody]
    var nextCursor: String?

    private enum CodingKeys: String, CodingKey { case documents, nextCursor }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(documents, forKey: .documents)
        try c.encode(nextCursor, forKey: .nextCursor)  // null at the end, spelled out
    }
}
