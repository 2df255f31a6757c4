import AccordCRDT
import AccordNet
import AccordStore

/// The JSON routes behind `/dashboard`, for the server's admins only: a token with the
/// `admin` claim (`accord token --admin`) or whose user is in
/// ``AccordServer/Configuration/adminUsers``. Any other caller gets the usual coded
/// errors (401 `UNAUTHENTICATED`, 403 `PERMISSION_DENIED`) and nothing changes.
///
/// | call | answer |
/// |---|---|
/// | `POST /v1/admin/dashboard/ticket` | `{"ticket", "expiresInMilliseconds"}` for the live socket ([DashboardMonitor]) |
/// | `GET /v1/admin/dashboard/overview` | `{"samples": [...]}`, the last 15 minutes |
/// | `GET /v1/admin/dashboard/documents?q=&sort=&order=&page=&pageSize=` | one page of the documents table |
/// | `GET /v1/admin/dashboard/document?id=` | a document's page: metadata, content tree, clients, access, updates |
/// | `DELETE /v1/admin/dashboard/document?id=` | deletes it |
/// | `GET /v1/admin/dashboard/document/yjs?id=` | its state as one Yjs update (`document.yjs`) |
/// | `GET /v1/admin/dashboard/document/export?id=` | the export bundle JSON of `/v1/admin/documents/{id}/export` |
/// | `GET /v1/admin/dashboard/document/blob?id=&hash=` | a blob the document references, as an attachment |
/// | `POST /v1/admin/dashboard/document/compact?id=` | folds its update log into a snapshot now |
/// | `PUT`, `DELETE /v1/admin/dashboard/document/permissions?id=` | as `/v1/documents/{id}/permissions`, acting for the owner |
/// | `PUT`, `DELETE /v1/admin/dashboard/document/link-access?id=` | as `/v1/documents/{id}/link-access`, acting for the owner |
/// | `GET /v1/admin/dashboard/people` | users connected now or seen since the server started, their connections, documents, groups and collections |
/// | `GET /v1/admin/dashboard/collections?after=&limit=` | every collection, a page at a time, in id order |
/// | `GET /v1/admin/dashboard/groups?after=&limit=` | every group, its members and how many documents it is granted, paged |
///
/// Document ids travel in the `id` query parameter, so an id may hold any character a
/// document id may (slashes included) without clashing with the action in the path.
struct DashboardAPI: Sendable {
    static let prefix = "/v1/admin/dashboard"

    let directory: DocumentDirectory
    let hub: SyncHub
    let monitor: DashboardMonitor
    let people: DashboardPeople
    /// The document page's content trees (at most four encodings a second per document).
    let contents: DashboardContentCache
    /// The sharing routes the permission and link-access actions go through.
    let documentsAPI: DocumentsAPI
    /// Where the blobs documents reference are listed from (nil: no blob storage).
    let blobStore: BlobStore?
    /// The export route, called once this API has checked the caller.
    let export: @Sendable (DocumentID) -> HTTPResponse
    /// The caller's user id when the request carries an admin's token; else throws
    /// `UNAUTHENTICATED` or `PERMISSION_DENIED`.
    let authenticateAdmin: @Sendable (HTTPRequest) throws(AccordError) -> String

    func register(in routes: inout HTTPRoutes) {
        // The strict headers of the page go on its data too (nosniff above all: a JSON
        // body holding user strings is never taken for markup).
        // Its CPU time is the dashboard's (`routes`): the check of the token included.
        let secured: @Sendable (HTTPRequest) -> HTTPResponse = { [cpu = monitor.cpu] request in
            var response = cpu.measure(.routes) { respond(to: request) }
            response.headers += DashboardPages.securityHeaders
            return response
        }
        let handler: HTTPRoutes.Handler = { request in
            // A document's page, state, export and compaction read its content (waiting
            // for REST work that holds its room): off the network thread.
            request.path.hasPrefix(Self.prefix + "/document")
                ? RESTWork.deferred { secured(request) } : secured(request)
        }
        for method in [HTTPMethod.get, .post, .put, .delete] {
            routes.add(method, prefix: Self.prefix + "/", handler)
        }
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        do throws(AccordError) {
            let user = try authenticateAdmin(request)
            let route = String(request.path.dropFirst(Self.prefix.count + 1))
            switch (request.method, route) {
            case (.post, "ticket"):
                let issued = monitor.issueTicket(for: user)
                return RecordsAPI.result(.object(OrderedObject([
                    ("ticket", .string(issued.ticket)), ("expiresInMilliseconds", .int(Int64(issued.expiresInMilliseconds))),
                ])))
            case (.get, "overview"):
                return RecordsAPI.result(.object(OrderedObject([("samples", .array(monitor.history.map(\.json)))])))
            case (.get, "documents"):
                return RecordsAPI.result(try documentsTable(DashboardTableQuery(request)))
            case (.get, "people"):
                return RecordsAPI.result(try people.json(
                    connections: hub.connectionSummaries(), groups: directory.access.groups,
                    collections: directory.access.collections))
            case (.get, "collections"):
                return RecordsAPI.result(try collectionsPage(request))
            case (.get, "groups"):
                return RecordsAPI.result(try groupsPage(request))
            case (_, "document"), (_, "document/yjs"), (_, "document/export"), (_, "document/compact"),
                 (_, "document/permissions"), (_, "document/link-access"), (_, "document/blob"):
                return try documentRoute(route, request)
            default:
                return HTTPResponse(status: 404, text: "not found\n")
            }
        } catch {
            return RESTError.response(error)
        }
    }

    private func documentRoute(_ route: String, _ request: HTTPRequest) throws(AccordError) -> HTTPResponse {
        guard let raw = request.queryValue("id") else {
            throw AccordError(.invalidArgument, "name the document with ?id=", details: ["parameter": "id"])
        }
        let id = try DocumentID(validating: raw)
        guard try directory.documents.contains(id) else {
            throw AccordError(.documentNotFound, "no document \(id)", details: ["document": id.rawValue])
        }
        switch (request.method, route) {
        case (.get, "document"): return RecordsAPI.result(try documentPage(id))
        case (.delete, "document"):
            let response = try documentsAPI.deleteDocument(id, user: try owner(of: id))
            monitor.forget(id)
            contents.forget(id)
            return response
        case (.get, "document/yjs"):
            let update = try state(of: id)
            return HTTPResponse(
                status: 200, contentType: "application/octet-stream",
                headers: [("content-disposition", "attachment; filename=\"document.yjs\"")], body: update)
        case (.get, "document/export"): return export(id)
        case (.get, "document/blob"): return try blobDownload(id, request)
        case (.post, "document/compact"):
            // Buffered appends first, so the fold takes in everything received so far.
            try directory.documents.flush()
            let outcome: String
            var fields: [(String, AnyValue)] = [("id", .string(id.rawValue))]
            switch try directory.documents.compact(id) {
            case .compacted(let bytes):
                outcome = "compacted"
                fields.append(("snapshotBytes", .int(Int64(bytes))))
            case .nothingToCompact: outcome = "nothing-to-compact"
            case .skippedPendingStructs: outcome = "skipped-pending-structs"
            case .superseded: outcome = "superseded"
            case .keptJoinableLog: outcome = "kept-joinable-log"  // automatic compaction only
            }
            fields.append(("outcome", .string(outcome)))
            return RecordsAPI.result(.object(OrderedObject(fields)))
        case (.put, "document/permissions"), (.delete, "document/permissions"):
            return try documentsAPI.permissions(request, id, user: try owner(of: id))
        case (.put, "document/link-access"), (.delete, "document/link-access"):
            return try documentsAPI.linkAccess(request, id, user: try owner(of: id))
        default:
            return HTTPResponse(status: 405, text: "method not allowed\n")
        }
    }

    /// Who the sharing routes see acting: the owner, the one role every change is open to.
    private func owner(of id: DocumentID) throws(AccordError) -> String {
        guard let access = try directory.access.access(id) else {
            throw AccordError(.docAccessDenied, "document \(id) has no access row", details: ["document": id.rawValue])
        }
        return access.owner
    }

    /// The document as its clients see it: the open room's copy, else the stored one.
    func state(of id: DocumentID) throws(AccordError) -> [UInt8] {
        if let state = hub.roomView(id)?.state { return state }
        return try directory.documents.load(id).encodeStateAsUpdate()
    }
}
