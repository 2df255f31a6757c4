public import AccordCRDT
public import AccordStore
public import Foundation

/// The server's documents together with their access rows.
///
/// Creating a document = `documents.create` + an access row with the creator as owner,
/// so `POST /v1/documents` and the sync server's create-on-connect follow one rule.
public struct DocumentDirectory: Sendable {
    public let documents: DocumentStore
    public let access: AccessStore
    /// Creations per user per hour; nil: unlimited.
    public let creationQuota: CreationQuota?

    /// Ids ending in these are not created: the REST API reads a path that ends so as a
    /// sub-resource (`/v1/documents/{id}/permissions`), so such a document could never be
    /// addressed (paths arrive URL-decoded, so `%2F` cannot tell the cases apart).
    static let reservedSuffixes = ["/permissions", "/link-access", "/owner", "/groups", "/access-requests", "/invitations"]

    public init(documents: DocumentStore, access: AccessStore, creationQuota: CreationQuota? = nil) {
        self.documents = documents
        self.access = access
        self.creationQuota = creationQuota
    }

    /// Creates an empty document owned by `owner`.
    ///
    /// The owner row is written first and the document second, so a crash in between
    /// leaves a row without a document, which means nothing and is overwritten when the
    /// id is created again; the other order would leave a document nobody may open. If
    /// creating the document fails, the row is removed again.
    ///
    /// - Throws: `DOCUMENT_EXISTS` if the id is taken (nothing changes);
    ///   `INVALID_ARGUMENT` for an invalid owner id or an id ending in `/permissions`,
    ///   `/link-access` or `/owner`; `TOO_MANY_DOCUMENTS` past the owner's ``creationQuota``;
    ///   storage errors. Only a document actually created counts against the quota.
    @discardableResult
    public func create(
        _ id: DocumentID, owner: String, title: String = "", tags: [String] = [], created: Date? = nil
    ) throws(AccordError) -> DocumentMetadata {
        try UserIDRule.validate(owner)
        // Bytes, as the REST router compares them (see DocumentsRoute).
        let reversed = Array(id.rawValue.utf8.reversed())
        if let suffix = Self.reservedSuffixes.first(where: { reversed.starts(with: $0.utf8.reversed()) }) {
            throw AccordError(
                .invalidArgument, "a document id may not end in \(suffix) (the REST API reserves it)",
                details: ["document": id.rawValue])
        }
        // The blob routes take a path ending in `/blobs` or `/blobs/<sha256>` (BlobsRoute).
        if BlobsRoute.isReserved(documentID: id.rawValue) {
            throw AccordError(
                .invalidArgument, "a document id may not end in /blobs or /blobs/<sha256> (the REST API reserves it)",
                details: ["document": id.rawValue])
        }
        // Access-request decisions end in `/access-requests/{request}/approve|deny`.
        if id.rawValue.utf8.firstRange(of: "/access-requests/".utf8) != nil {
            throw AccordError(
                .invalidArgument, "a document id may not contain /access-requests/ (the REST API reserves it)",
                details: ["document": id.rawValue])
        }
        // The records routes take the id to end at the first `/records/` (RecordsRoute).
        if id.rawValue.utf8.firstRange(of: RecordsRoute.marker.utf8) != nil {
            throw AccordError(
                .invalidArgument, "a document id may not contain /records/ (the REST API reserves it)",
                details: ["document": id.rawValue])
        }
        try creationQuota?.take(owner)
        do {
            return try createOwned(id, owner: owner, title: title, tags: tags, created: created)
        } catch {
            creationQuota?.giveBack(owner)
            throw error
        }
    }

    /// ``create(_:owner:title:tags:)`` for the sync server's create-on-connect, which
    /// never re-creates a deleted document: a device that still has it open would bring
    /// its old content back with itself as the owner. (An explicit create, by REST or an
    /// admin import, may reuse the id: it starts empty, or from a bundle.)
    /// - Throws: `DOCUMENT_DELETED` for the id of a deleted document, and what `create` throws.
    ///
    /// `entry` is the device's `create` message, whose title, tags and metadata the new
    /// document takes (the codec checked the directory's limits; metadata is stored as
    /// compact JSON, as the REST API stores it).
    public func createOnConnect(_ id: DocumentID, owner: String, entry: DirectoryMessage? = nil) throws(AccordError) {
        if try access.wasDeleted(id) {
            throw AccordError(
                .documentDeleted, "document \(id) was deleted; connecting does not create it again",
                details: ["document": id.rawValue])
        }
        guard case .create(_, let title, let tags, let metadata)? = entry else {
            try create(id, owner: owner)
            return
        }
        var details = DocumentDetails()
        if let metadata { details.metadata = try DocumentDetails.metadataText(try AnyValue(jsonText: metadata)) }
        try create(id, owner: owner, title: title, tags: tags)
        // After the document: a details row without its document would mean nothing.
        try setDetails(details, for: id)
    }

    private func createOwned(
        _ id: DocumentID, owner: String, title: String, tags: [String], created: Date?
    ) throws(AccordError) -> DocumentMetadata {
        // One creator per access store at a time; see AccessStore.creation. Not held by
        // anything the document store calls, so its observers cannot deadlock with it.
        access.creation.lock()
        defer { access.creation.unlock() }
        return try createWhileLocked(id, access: DocumentAccess(owner: owner), title: title, tags: tags, created: created)
    }

    /// ``create(_:owner:title:tags:)`` for a caller that holds `access.creation` (alias
    /// creation, which must look up and create as one step) and counted the quota.
    func createWhileLocked(
        _ id: DocumentID, access row: DocumentAccess, beforeDocument: () throws(AccordError) -> Void = {},
        title: String, tags: [String], created: Date? = nil
    ) throws(AccordError) -> DocumentMetadata {
        // In a cluster another node may be creating the same id: check and create under
        // the document's cluster-wide lock, against the storage rather than the cache.
        let clusterLock = documents.options.shared?.documentLock
        if let clusterLock {
            try clusterLock.lock(id)
            documents.forgetCached(id)
            access.forgetCached(id)
        }
        defer { clusterLock?.unlock(id) }
        if try documents.contains(id) {
            throw AccordError(.documentExists, "document \(id) already exists", details: ["document": id.rawValue])
        }

        try row.validate()
        var row = row
        row.ownerListing = try appendOwned(id, owner: row.owner)
        try access.setAccess(row, for: id)
        try beforeDocument()
        do {
            return try documents.create(id, title: title, tags: tags, created: created)
        } catch {
            // Best effort: a row left behind means nothing without its document.
            try? access.removeAccess(id)
            throw error
        }
    }
}
