import Foundation
import AccordStore

/// `GET /v1/documents/{id}` and `POST /v1/documents`:
/// `{"id","title","tags","created","updated","size","permission"}`, dates in ISO 8601
/// UTC with milliseconds, `size` in stored bytes, `permission` the caller's role.
struct DocumentBody: Encodable {
    var id: String
    var title: String
    var tags: [String]
    var created: String
    var updated: String
    var size: Int
    var permission: Role

    // Milliseconds, so two changes within one second still read as ordered.
    static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    init(_ metadata: DocumentMetadata, permission: Role) {
        self.id = metadata.id.rawValue
        self.title = metadata.title
        self.tags = metadata.tags
        self.created = Self.dateStyle.format(metadata.created)
        self.updated = Self.dateStyle.format(metadata.updated)
        self.size = metadata.size
        self.permission = permission
    }
}

/// The permissions endpoints (owner only):
/// `{"owner": "...", "members": {"user": "role"}, "linkAccess": null|"reader"|"read-write"}`.
struct PermissionsBody: Encodable {
    var owner: String
    var members: [String: Role]
    var linkAccess: Role?

    init(_ access: DocumentAccess) {
        owner = access.owner
        members = access.members
        linkAccess = access.linkAccess
    }

    private enum CodingKeys: String, CodingKey { case owner, members, linkAccess }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(owner, forKey: .owner)
        try c.encode(members, forKey: .members)
        // null rather than a missing key, so clients see "no link access" spelled out.
        try c.encode(linkAccess, forKey: .linkAccess)
    }
}

/// The link-access endpoints:
/// `{"linkAccess": null|"reader"|"read-write", "changedBy": null|user, "changedAt": null|date}`.
/// Not the whole row: any member may read it and read-write editors may change it, but
/// the member list is the owner's.
struct LinkAccessBody: Encodable {
    var linkAccess: Role?
    var changedBy: String?
    var changedAt: String?

    init(_ access: DocumentAccess?) {
        linkAccess = access?.linkAccess
        changedBy = access?.linkAccessChangedBy
        changedAt = access?.linkAccessChangedAt.map {
            DocumentBody.dateStyle.format(Date(timeIntervalSince1970: Double($0) / 1000))
        }
    }

    private enum CodingKeys: String, CodingKey { case linkAccess, changedBy, changedAt }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        // null rather than missing keys, so clients see "never set" spelled out.
        try c.encode(linkAccess, forKey: .linkAccess)
        try c.encode(changedBy, forKey: .changedBy)
        try c.encode(changedAt, forKey: .changedAt)
    }
}
