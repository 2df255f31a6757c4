public import AccordCRDT
public import AccordStore

/// The signed-in user's effective permission on a document changed: a grant, a revoke,
/// a link-access change, an ownership transfer, a creation or a deletion, made on any
/// device by anyone. Pushed by the server over the client's `/v1/sync` connection, for
/// documents open or not (a new share arrives as one).
public struct PermissionEvent: AccordEvent, Hashable {
    public var documentID: DocumentID
    /// The permission now; nil = no access any more.
    public var permission: DocumentPermission?
    /// The permission before; nil = none.
    public var previous: DocumentPermission?
    /// What changed it: `grant`, `revoke`, `link-access`, `transfer`, `create`, `delete`
    /// (an open set: later servers may add causes).
    public var cause: String

    public init(documentID: DocumentID, permission: DocumentPermission?, previous: DocumentPermission?, cause: String) {
        self.documentID = documentID
        self.permission = permission
        self.previous = previous
        self.cause = cause
    }
}

/// A document's directory entry changed for the signed-in user, and the client's
/// metadata cache (``AccordClient/cachedDocument(_:)``) already holds the change.
public struct DocumentMetadataChangedEvent: AccordEvent, Hashable {
    public enum Action: String, Sendable, Hashable {
        /// Title, tags, thumbnail, metadata or the user's permission changed (or the
        /// document is new to the user): ``DocumentMetadataChangedEvent/document`` is the entry.
        case updated
        /// Deleted on the server, or the user's access is gone: the client dropped its
        /// local copy (unacknowledged edits included: the server would refuse them).
        case deleted
        /// This device dropped its local content (`evict`, `close(evictLocal:)`); the
        /// document is still on the server. Never sent by the server.
        case evicted
    }

    public var documentID: DocumentID
    public var action: Action
    /// The entry after an ``Action/updated``; nil otherwise.
    public var document: DocumentInfo?

    public init(documentID: DocumentID, action: Action, document: DocumentInfo? = nil) {
        self.documentID = documentID
        self.action = action
        self.document = document
    }
}
