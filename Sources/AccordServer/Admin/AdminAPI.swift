import Foundation
import AccordCRDT
import AccordNet
import AccordStore
import AccordRecords

/// Operator routes for moving documents between servers (`accord documents export`,
/// `export-all`, `import`; layout of the bundles in `docs/operations.md`). Only the
/// server's admins (``AccordServer/Configuration/adminUsers``) may call them; they see
/// every document whatever its access rows say.
///
/// | call | answer |
/// |---|---|
/// | `GET /v1/admin/documents[?user=U]` | `{"result": {"documents": [id, ...]}}`: every document, or those U has a role on |
/// | `GET /v1/admin/documents/{id}/export` | `{"result": {"metadata", "permissions", "update", "recordsSchema"?}}`, the update base64 |
/// | `POST /v1/admin/documents/{id}/import` | `{"metadata", "update", "owner"?, "overwrite"?, "recordsSchema"?}` → 201 created, 200 merged |
struct AdminAPI: Sendable {
    let directory: DocumentDirectory
    let schemas: RecordsSchemaStore
    let hub: SyncHub
    let admins: Set<String>
    let authenticate: @Sendable (HTTPRequest) throws(AccordError) -> String

    static let prefix = "/v1/admin/documents"

    func register(in routes: inout HTTPRoutes) {
        // Exports and imports work on whole documents: off the network thread.
        let handler: HTTPRoutes.Handler = { request in RESTWork.deferred { respond(to: request) } }
        routes.add(.get, Self.prefix, handler)
        routes.add(.get, prefix: Self.prefix + "/", handler)
        routes.add(.post, prefix: Self.prefix + "/", handler)
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        do throws(AccordError) {
            let user = try authenticate(request)
            guard admins.contains(user) else {
                throw AccordError(.permissionDenied, "the admin routes are for the server's admins",
                                  details: ["required": "admin"])
            }
            if request.path == Self.prefix { return try list(user: request.queryValue("user")) }
            let rest = request.path.dropFirst(Self.prefix.count + 1)
            if request.method == .get, rest.hasSuffix("/export") {
                return try export(try DocumentID(validating: String(rest.dropLast("/export".count))))
            }
            if request.method == .post, rest.hasSuffix("/import") {
                return try importDocument(try DocumentID(validating: String(rest.dropLast("/import".count))), request)
            }
            return HTTPResponse(status: 404, text: "not found\n")
        } catch {
            return RecordsError.response(error)
        }
    }

    private func list(user: String?) throws(AccordError) -> HTTPResponse {
        var ids: [AnyValue] = []
        for metadata in try directory.documents.documents() where metadata.isResident {
            if let user, try directory.access.role(of: user, on: metadata.id) == nil { continue }
            ids.append(.string(metadata.id.rawValue))
        }
        return RecordsAPI.result(.object(OrderedObject([("documents", .array(ids))])))
    }

    private func export(_ id: DocumentID) throws(AccordError) -> HTTPResponse {
        guard try directory.documents.contains(id) else {
            throw AccordError(.documentNotFound, "no document \(id)", details: ["document": id.rawValue])
        }
        let metadata = try directory.documents.metadata(id)
        let access = try directory.access.access(id)
        // The room's copy when it is open: what its clients see, stored or not yet.
        let update = try hub.withRoom(id) { room throws(AccordError) in room.doc.encodeStateAsUpdate() }
        let exported = BundleMetadata(metadata, owner: access?.owner)
        var permissions: [AnyValue] = []
        if let access {
            permissions.append(Self.permission(access.owner, .owner))
            for (member, role) in access.members.sorted(by: { $0.key < $1.key }) { permissions.append(Self.permission(member, role)) }
        }
        var entries: [(String, AnyValue)] = [
            ("metadata", exported.json), ("permissions", .array(permissions)),
            ("update", .string(Data(update).base64EncodedString())),
        ]
        if let models = try schemas.models(id) { entries.append(("recordsSchema", RecordsSchemaStore.json(models))) }
        return RecordsAPI.result(.object(OrderedObject(entries)))
    }

    private static func permission(_ user: String, _ role: Role) -> AnyValue {
        .object(OrderedObject([
            ("user", .string(user)), ("permission", .string(role.rawValue)), ("grantedAt", .null), ("status", .string("active")),
        ]))
    }

    /// Creates the document (owner: `owner`, else the bundle's creator) with the
    /// bundle's title and tags and applies the update; or, with
    /// `overwrite`, merges the update into the existing document (Yjs applyUpdate:
    /// what either side holds survives). Without it an existing id is 409
    /// `DOCUMENT_EXISTS` and nothing changes.
    private func importDocument(_ id: DocumentID, _ request: HTTPRequest) throws(AccordError) -> HTTPResponse {
        let json: AnyValue
        do throws(AccordError) {
            json = try AnyValue(jsonRefusingDuplicateKeys: request.body)
        } catch {
            throw AccordError(.malformedJSON, "the import body is not JSON: \(error.message)")
        }
        guard case .object(let body) = json, case .object? = body["metadata"],
              case .string(let encoded)? = body["update"], let update = Data(base64Encoded: encoded).map(Array.init)
        else {
            throw AccordError(.invalidArgument, "an import body is {\"metadata\": {...}, \"update\": base64, \"owner\"?, \"overwrite\"?}")
        }
        let metadata = try BundleMetadata(json: body["metadata"] ?? .null)
        let overwrite = body["overwrite"] == .bool(true)
        let models = try body["recordsSchema"].map { json throws(AccordError) in try ModelSchema.models(json: json) }
        // Refuse an update that does not decode before anything is created.
        _ = try encodeStateVectorFromUpdate(update)
        let exists = try directory.documents.contains(id)
        if exists && !overwrite {
            throw AccordError(.documentExists, "document \(id) exists; pass overwrite to merge into it", details: ["document": id.rawValue])
        }
        if !exists {
            let owner: String
            if case .string(let given)? = body["owner"] { owner = given } else { owner = metadata.createdBy ?? "" }
            // The bundle's creation time is restored (an import is a move, not a new document).
            try directory.create(id, owner: owner, title: metadata.title, tags: metadata.tags, created: try metadata.createdDate())
        }
        try hub.withRoom(id) { room throws(AccordError) in
            if let applied = try room.serverApply(update) { try hub.commit(applied, in: room) }
        }
        if let models { try schemas.setModels(models, for: id) }
        return RecordsAPI.result(.object(OrderedObject([("id", .string(id.rawValue)), ("merged", .bool(exists))])),
                                 status: exists ? 200 : 201)
    }
}
