public import AccordCRDT
public import AccordNet
public import Foundation
import AccordStore

/// The REST API for documents and their permissions (JSON in and out; the shapes are in
/// `docs/server-api.md`).
///
/// | call | who |
/// |---|---|
/// | `POST /v1/documents` | any signed-in user; becomes the owner |
/// | `GET /v1/documents/{id}` | any role |
/// | `PATCH /v1/documents/{id}` | owner or read-write |
/// | `DELETE /v1/documents/{id}` | owner |
/// | `GET`, `PUT`, `DELETE /v1/documents/{id}/permissions` | owner |
/// | `GET /v1/documents/{id}/invitations` | owner |
/// | `GET /v1/documents/{id}/link-access` | any role |
/// | `PUT`, `DELETE /v1/documents/{id}/link-access` | owner or read-write |
/// | `PUT /v1/documents/{id}/owner` | owner |
///
/// A request is checked in this order, and the first failure answers: the route (404,
/// 405), `authenticate` (401), the id and the body (400), the document's existence
/// (404), the caller's role (403: `DOC_ACCESS_DENIED` without any role,
/// `PERMISSION_DENIED` with too low a role). A refused call changes nothing.
///
/// Existence is not hidden: a missing document is 404 for every signed-in caller,
/// because `POST` with a taken id (409) and the sync server's create-on-connect reveal
/// it anyway. Document ids are names, not secrets.
///
/// Handlers run on the server's service thread and read and write the store
/// synchronously; every call is a few small SQLite operations.
public struct DocumentsAPI: Sendable {
    let directory: DocumentDirectory
    let authenticate: @Sendable (HTTPRequest) throws(AccordError) -> String
    let accessChanged: @Sendable (DocumentID) -> Void
    /// The blob routes, which share the `/v1/documents` prefix (nil: not served).
    let blobs: BlobsAPI?
    let directoryChanged: @Sendable (DirectoryChange) -> Void
    /// The clock of access requests (their 30-day expiry).
    let now: @Sendable () -> Date
    /// Where `sendEmail` shares and access-request decisions are queued for the webhook
    /// (nil: none, and `sendEmail: true` is refused).
    let notifications: NotificationOutbox?

    /// - Parameters:
    ///   - authenticate: the caller's user id for a request, or `UNAUTHENTICATED`. The
    ///     server passes its token verifier; tests map a header to a user.
    ///   - accessChanged: called after a permissions or link-access call changed the
    ///     stored row (not for calls that left it as it was), outside any lock, so the
    ///     sync server can re-check that document's open connections.
    ///   - directoryChanged: called after every call that changed the directory (access,
    ///     entry, creation, deletion), before `accessChanged`, outside any lock, so the
    ///     sync server can tell connected users (`docs/protocol.md`, directory events).
    public init(
        directory: DocumentDirectory,
        authenticate: @escaping @Sendable (HTTPRequest) throws(AccordError) -> String,
        accessChanged: @escaping @Sendable (DocumentID) -> Void, blobs: BlobsAPI? = nil,
        directoryChanged: @escaping @Sendable (DirectoryChange) -> Void = { _ in },
        now: @escaping @Sendable () -> Date = { Date() }, notifications: NotificationOutbox? = nil
    ) {
        self.now = now
        self.notifications = notifications
        self.directory = directory
        self.authenticate = authenticate
        self.accessChanged = accessChanged
        self.blobs = blobs
        self.directoryChanged = directoryChanged
    }

    /// Reports an access change whose rows differ (the callers pass `update`'s result).
    func reportAccess(_ id: DocumentID, before: DocumentAccess?, after: DocumentAccess?, cause: String) {
        if let before, let after, before != after {
            directoryChanged(.access(id, before: before, after: after, cause: cause))
        }
        accessChanged(id)
    }

    /// Adds `POST /v1/documents` and prefix routes for everything under it. The prefix
    /// is `/v1/documents` without the slash so that an id starting with a combining mark
    /// (which `String.hasPrefix` would fuse with the slash) still reaches ``respond(to:)``.
    public func register(in routes: inout HTTPRoutes) {
        let handler: HTTPRoutes.Handler = { request in respond(to: request) }
        routes.add(.post, DocumentsRoute.collectionPath, handler)
        for method in [HTTPMethod.get, .head, .put, .delete, .post, .patch] {
            routes.add(method, prefix: DocumentsRoute.collectionPath, handler)
        }
        registerAliases(in: &routes)
        blobs?.register(in: &routes)
    }

    /// The response to a request, with the same routing as ``register(in:)``; tests call
    /// it without a server.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        if let userRoute = respondToUserRoute(request) { return userRoute }
        if let blobs, BlobsAPI.claims(request.path) { return blobs.respond(to: request) }
        let route: DocumentsRoute
        switch DocumentsRoute.parse(request.method, request.path) {
        case .success(let parsed): route = parsed
        case .failure(let refusal): return refusal.response
        }
        do {
            let user = try authenticatedUser(request)
            switch route {
            case .create: return try create(request, user: user)
            case .document(let id): return try document(try documentID(id), user: user)
            case .updateDocument(let id): return try updateDocument(request, try documentID(id), user: user)
            case .deleteDocument(let id): return try deleteDocument(try documentID(id), user: user)
            case .permissions(let id): return try permissions(request, try documentID(id), user: user)
            case .linkAccess(let id): return try linkAccess(request, try documentID(id), user: user)
            case .owner(let id): return try transferOwnership(request, try documentID(id), user: user)
            case .groups(let id): return try groupGrant(request, try documentID(id), user: user)
            case .accessRequests(let id): return try accessRequests(request, try documentID(id), user: user)
            case .invitations(let id): return try pendingInvitations(try documentID(id), user: user)
            case .accessRequestDecision(let id, let requestID, let approve):
                return try decideAccessRequest(request, try documentID(id), requestID, approve: approve, user: user)
            }
        } catch {
            return RESTError.response(error)
        }
    }

    // MARK: Checks shared by the handlers

    /// The authenticated user; an id the access rows could not hold is no sign-in.
    func authenticatedUser(_ request: HTTPRequest) throws(AccordError) -> String {
        try UserIDRule.signedIn(authenticate(request))
    }

    private func documentID(_ raw: String) throws(AccordError) -> DocumentID {
        try DocumentID(validating: raw)
    }

    /// `DOCUMENT_NOT_FOUND` unless the document exists; checked before any role, so
    /// that a row left behind by a deleted document never grants anything.
    func requireDocument(_ id: DocumentID) throws(AccordError) {
        guard try directory.documents.contains(id) else {
            throw AccordError(.documentNotFound, "no document \(id)", details: ["document": id.rawValue])
        }
    }

    /// The caller's role if it is at least `minimum`: `DOC_ACCESS_DENIED` without any
    /// role (also when the document has no access row), `PERMISSION_DENIED` below it.
    static func requireRole(
        _ minimum: Role, of user: String, in access: DocumentAccess?, on id: DocumentID, groups store: AccessStore
    ) throws(AccordError) -> Role {
        guard let role = try store.effectiveRole(of: user, in: access, on: id) else {
            // A root document is never shared, so asking for access to it is pointless.
            throw AccordError(
                .docAccessDenied, "no access to document \(id)",
                details: ["document": id.rawValue, "canRequestAccess": access?.isRoot == true ? "false" : "true"])
        }
        guard role >= minimum else {
            throw AccordError(
                .permissionDenied,
                "this needs the role \(minimum.rawValue) on document \(id); yours is \(role.rawValue)",
                details: ["document": id.rawValue, "role": role.rawValue, "required": minimum.rawValue])
        }
        return role
    }
}
