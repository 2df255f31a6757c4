import AccordCRDT
import Foundation
import AccordStore

/// `GET`, `PATCH /v1/documents/{id}` and `POST /v1/documents`:
/// `{"id","title","tags","created","updated","size","permission","owner","metadata","thumbnailBlobId"}`,
/// dates in ISO 8601 UTC with milliseconds, `size` in stored bytes, `permission` the
/// caller's role, `metadata` any JSON or null, `thumbnailBlobId` a string or null.
struct DocumentBody: Encodable {
    var id: String
    var title: String
    var tags: [String]
    var created: String
    var updated: String
    var size: Int
    var permission: Role
    var owner: String
    var metadata: EncodableJSON
    var thumbnailBlobId: String?
    /// Shared listing only: who granted it (the owner) and how (`direct`).
    var grantedBy: String?
    var source: String?

    // Milliseconds, so two changes within one second still read as ordered.
    static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    init(_ metadata: DocumentMetadata, permission: Role, owner: String, details: DocumentDetails) {
        self.id = metadata.id.rawValue
        self.title = metadata.title
        self.tags = metadata.tags
        self.created = Self.dateStyle.format(metadata.created)
        self.updated = Self.dateStyle.format(metadata.updated)
        self.size = metadata.size
        self.permission = permission
        self.owner = owner
        // Stored text was written from a parsed value, so it parses; null if it ever did not.
        self.metadata = EncodableJSON(value: details.metadata.flatMap { try? AnyValue(jsonText: $0) } ?? .null)
        self.thumbnailBlobId = details.thumbnailBlobID
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, tags, created, updated, size, permission, owner, metadata, thumbnailBlobId, grantedBy, source
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encode(tags, forKey: .tags)
        try c.encode(created, forKey: .created)
        try c.encode(updated, forKey: .updated)
        try c.encode(size, forKey: .size)
        try c.encode(permission, forKey: .permission)
        try c.encode(owner, forKey: .owner)
        try c.encode(metadata, forKey: .metadata)
        // null rather than a missing key, so clients see "no thumbnail" spelled out.
        try c.encode(thumbnailBlobId, forKey: .thumbnailBlobId)
        try c.encodeIfPresent(grantedBy, forKey: .grantedBy)
        try c.encodeIfPresent(source, forKey: .source)
    }
}

/// The permissions endpoints (owner only):
/// `{"owner": "...", "members": {"user": "role"}, "linkAccess": null|"reader"|"read-write"}`.
struct PermissionsBody: Encodable {
    var owner: String
    var members: [String: Role]
    var linkAccess: Role?
    /// Grants to groups (`type/id` → role); the key is left out while there are none.
    var groups: [String: Role]?
    /// Pending invitations (address → role); the key is left out while there are none.
    var invitations: [String: Role]?

    init(_ access: DocumentAccess) {
        owner = access.owner
        members = access.members
        linkAccess = access.linkAccess
        groups = access.groups
        invitations = access.invitations?.mapValues(\.role)
    }

    private enum CodingKeys: String, CodingKey { case owner, members, linkAccess, groups, invitations }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(owner, forKey: .owner)
        try c.encode(members, forKey: .members)
        // null rather than a missing key, so clients see "no link access" spelled out.
        try c.encode(linkAccess, forKey: .linkAccess)
        try c.encodeIfPresent(groups, forKey: .groups)
        try c.encodeIfPresent(invitations, forKey: .invitations)
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
