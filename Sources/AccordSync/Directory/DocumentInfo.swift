public import AccordCRDT
public import AccordStore
public import Foundation

/// A document as the server's directory knows it (`documents.get(id)`): its metadata
/// and the caller's effective permission.
public struct DocumentInfo: Sendable, Hashable {
    public var id: DocumentID
    public var title: String
    public var tags: [String]
    public var created: Date
    public var updated: Date
    /// Stored bytes on the server (snapshot plus log).
    public var size: Int
    /// The caller's effective role (their grant, the link floor, or owner).
    public var permission: DocumentPermission
    /// The owner's user id.
    public var owner: String
    /// The app's JSON metadata (at most 4 KB as JSON); nil when unset.
    public var metadata: AnyValue?
    /// Stored and returned as given; nil when unset.
    public var thumbnailBlobID: String?
    /// In the shared listing: who granted the caller access (the owner) and how
    /// (`"direct"`); nil elsewhere.
    public var grantedBy: String? = nil
    public var source: String? = nil

    public init(
        id: DocumentID, title: String, tags: [String], created: Date, updated: Date, size: Int,
        permission: DocumentPermission, owner: String, metadata: AnyValue? = nil, thumbnailBlobID: String? = nil,
        grantedBy: String? = nil, source: String? = nil
    ) {
        self.id = id
        self.title = title
        self.tags = tags
        self.created = created
        self.updated = updated
        self.size = size
        self.permission = permission
        self.owner = owner
        self.metadata = metadata
        self.thumbnailBlobID = thumbnailBlobID
        self.grantedBy = grantedBy
        self.source = source
    }
}
