public import AccordCRDT
public import AccordNet
import AccordStore
import Foundation

/// The blob routes under a document (shapes and rules in `docs/blobs.md`):
///
/// | call | who |
/// |---|---|
/// | `PUT /v1/documents/{id}/blobs/{sha256}` (streamed, resumable) | owner or read-write |
/// | `HEAD`, `GET /v1/documents/{id}/blobs/{sha256}` | any role (link viewers too) |
/// | `GET /v1/documents/{id}/blobs` | any role |
/// | `DELETE /v1/documents/{id}/blobs/{sha256}` | owner or read-write |
///
/// Admins (`--admins`) may do all of it on any document, for export and import.
///
/// Checks run in the order of the document routes (401, 400, 404 for the document,
/// 403), then the blob's own; a refused call changes nothing. A blob is visible
/// through a document only while that document references it, whoever else stored the
/// same bytes: knowing a hash gives no access to another document's content.
public struct BlobsAPI: Sendable {
    public let blobs: ServerBlobs
    let authenticate: @Sendable (HTTPRequest) throws(AccordError) -> String
    /// Asks for a collection pass soon (after a delete); never runs one on the caller.
    let collectionRequested: @Sendable () -> Void
    /// Users who read and write the blobs of every document, as they export and import
    /// every document through the admin routes (`--admins`).
    let admins: Set<String>

    /// The header telling the bytes an unfinished upload holds.
    static let uploadOffsetHeader = "accord-upload-offset"
    static let cacheControl = "private, max-age=31536000, immutable"

    public init(
        blobs: ServerBlobs, authenticate: @escaping @Sendable (HTTPRequest) throws(AccordError) -> String,
        collectionRequested: @escaping @Sendable () -> Void = {}, admins: Set<String> = []
    ) {
        self.blobs = blobs
        self.authenticate = authenticate
        self.collectionRequested = collectionRequested
        self.admins = admins
    }

    var directory: DocumentDirectory { blobs.directory }
    var store: BlobStore { blobs.store }

    /// Adds the streamed `PUT` route; the other methods reach ``respond(to:)`` through
    /// the document routes (``DocumentsAPI``), which share the path prefix.
    public func register(in routes: inout HTTPRoutes) {
        routes.addUpload(.put, matching: { BlobsRoute.parse($0)?.blob != nil }) { request in upload(request) }
    }

    /// Whether a path is a blob route's (the document routes hand those over).
    static func claims(_ path: String) -> Bool { BlobsRoute.parse(path) != nil }

    /// The answer to a non-upload blob request (`PUT` here is a body the front did not
    /// stream, which only a test calling this directly can produce).
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        guard let route = BlobsRoute.parse(request.path) else { return DocumentsRoute.Refusal.notFound.response }
        do {
            let user = try UserIDRule.signedIn(authenticate(request))
            let id = try DocumentID(validating: route.document)
            guard let blob = route.blob else {
                guard request.method == .get else { return Self.methodNotAllowed([.get]) }
                return try list(id, user: user)
            }
            let hash = try BlobHash(hex: blob.lowercased())
            switch request.method {
            case .get: return try read(request, id, hash, user: user, head: false)
            case .head: return try read(request, id, hash, user: user, head: true)
            case .delete: return try delete(id, hash, user: user)
            default: return Self.methodNotAllowed([.get, .head, .put, .delete])
            }
        } catch {
            return RESTError.response(error)
        }
    }

    // MARK: Checks

    /// The caller's role on an existing document, at least `minimum`.
    func requireRole(_ minimum: Role, _ id: DocumentID, user: String) throws(AccordError) -> Role {
        guard try directory.documents.contains(id) else {
            throw AccordError(.documentNotFound, "no document \(id)", details: ["document": id.rawValue])
        }
        if admins.contains(user) { return .owner }
        return try DocumentsAPI.requireRole(
            minimum, of: user, in: try directory.access.access(id), on: id, groups: directory.access)
    }

    func isReferenced(_ hash: BlobHash, by id: DocumentID) throws(AccordError) -> Bool {
        try store.documents(referencing: hash).contains(id)
    }

    static func notFound(_ hash: BlobHash, _ id: DocumentID) -> AccordError {
        AccordError(
            .blobNotFound, "document \(id) has no blob \(hash.hex)", details: ["blob": hash.hex, "document": id.rawValue])
    }

    static func methodNotAllowed(_ methods: [HTTPMethod]) -> HTTPResponse {
        DocumentsRoute.Refusal.methodNotAllowed(methods).response
    }

    // MARK: List and delete

    /// `GET …/blobs`: the blobs the document references, ascending by hash.
    func list(_ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        _ = try requireRole(.reader, id, user: user)
        let infos = try store.blobs(referencedBy: id)
        return RESTJSON.response(status: 200, BlobListBody(blobs: infos.map(BlobListEntry.init)))
    }

    /// `DELETE …/blobs/{sha256}`: drops the document's reference (and cancels an
    /// unfinished upload of it); the content goes at a later collection once no
    /// document references it and the grace period has passed.
    func delete(_ id: DocumentID, _ hash: BlobHash, user: String) throws(AccordError) -> HTTPResponse {
        _ = try requireRole(.readWrite, id, user: user)
        let key = BlobUploadRecord.key(hash, id)
        let referenced = try isReferenced(hash, by: id)
        let unfinished = try blobs.uploadRecord(key)
        guard referenced || unfinished != nil else { throw Self.notFound(hash, id) }
        if unfinished != nil, blobs.isStreaming(key) {
            throw AccordError(
                .blobUploadInProgress, "blob \(hash.hex) is being uploaded to document \(id) right now",
                details: ["blob": hash.hex, "document": id.rawValue])
        }
        if referenced {
            // Stamped before the reference goes, so no collection can see the blob
            // unreferenced without the grace period that starts now.
            try blobs.noteReleased(hash)
            try store.removeReference(hash, document: id)
        }
        if let unfinished { try blobs.discardUpload(key, unfinished) }
        collectionRequested()
        return HTTPResponse(status: 204)
    }
}
