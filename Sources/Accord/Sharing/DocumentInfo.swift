public import AccordCRDT
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
}

/// One field of ``Documents/update(_:title:tags:thumbnailBlobID:metadata:)``: leave it,
/// set it, or clear it.
public enum FieldChange<Value: Sendable & Hashable>: Sendable, Hashable {
    case unchanged
    case set(Value)
    case clear
}

/// Who may do what with a document (`documents.getPermissions(id)`, owner only).
public struct DocumentPermissions: Sendable, Hashable {
    public var owner: String
    /// Explicit grants by user id.
    public var members: [String: DocumentPermission]
    /// The floor every signed-in user gets; nil when unset.
    public var linkAccess: DocumentPermission?
}

/// A document's link access (`documents.getLinkAccess(id)`) and who last changed it.
public struct LinkAccess: Sendable, Hashable {
    /// The floor every signed-in user gets; nil when unset.
    public var level: DocumentPermission?
    /// Who last set or removed it, and when; nil while it was never changed.
    public var changedBy: String?
    public var changedAt: Date?

    public init(level: DocumentPermission?, changedBy: String? = nil, changedAt: Date? = nil) {
        self.level = level
        self.changedBy = changedBy
        self.changedAt = changedAt
    }
}
