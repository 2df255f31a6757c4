import AccordCRDT
import AccordNet
import AccordStore

/// Collections over REST (`docs/server-api.md`, Collections):
///
/// | call | who |
/// |---|---|
/// | `POST /v1/collections` `{"id"?, "title"?}` | any signed-in user, who becomes its owner |
/// | `GET /v1/collections/{cid}` | any member |
/// | `PUT /v1/collections/{cid}/documents` `{"document"}` | a collection owner who owns the document |
/// | `DELETE /v1/collections/{cid}/documents?document=` | a collection owner who owns the document |
/// | `PUT /v1/collections/{cid}/members` `{"user","role"}` | a collection owner |
/// | `DELETE /v1/collections/{cid}/members?user=` | a collection owner |
/// | `GET /v1/collections/{cid}/documents?limit=&cursor=` | any member |
///
/// A member's role (reader, read-write, owner: owner also manages the collection) applies
/// to every document in the collection, now and later, on top of the documents' own
/// grants (on a document it counts at most as read-write). Changes take effect at once:
/// the sync hub re-checks open connections of the documents concerned and tells users
/// whose role changed (cause `collection`).
struct CollectionsAPI: Sendable {
    let directory: DocumentDirectory
    let authenticate: @Sendable (HTTPRequest) throws(AccordError) -> String
    let directoryChanged: @Sendable (DirectoryChange) -> Void
    let accessChanged: @Sendable (DocumentID) -> Void
    /// A collection's row changed (a cluster's other nodes read it again), told before
    /// the access changes of its documents.
    let collectionChanged: @Sendable (String) -> Void

    static let path = "/v1/collections"

    private var store: CollectionStore { directory.access.collections }

    func register(in routes: inout HTTPRoutes) {
        let handler: HTTPRoutes.Handler = { request in respond(to: request) }
        routes.add(.post, Self.path, handler)
        for method in [HTTPMethod.get, .put, .delete, .post] { routes.add(method, prefix: Self.path + "/", handler) }
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        let route: (id: String?, tail: String?)
        if request.path == Self.path {
            route = (nil, nil)
        } else {
            let parts = request.path.dropFirst(Self.path.count + 1).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 1 || parts.count == 2 else { return HTTPResponse(status: 404, text: "not found\n") }
            route = (String(parts[0]), parts.count == 2 ? String(parts[1]) : nil)
        }
        switch (route.id, route.tail, request.method) {
        case (nil, nil, .post), (_?, nil, .get), (_?, "documents", .put), (_?, "documents", .delete),
             (_?, "documents", .get), (_?, "members", .put), (_?, "members", .delete):
            break
        case (nil, nil, _): return Self.notAllowed([.post])
        case (_?, nil, _): return Self.notAllowed([.get])
        case (_?, "documents", _): return Self.notAllowed([.get, .put, .delete])
        case (_?, "members", _): return Self.notAllowed([.put, .delete])
        default: return HTTPResponse(status: 404, text: "not found\n")
        }
        do throws(AccordError) {
            let user = try UserIDRule.signedIn(authenticate(request))
            guard let id = route.id else { return try create(request, user: user) }
            try CollectionStore.validateID(id)
            switch (route.tail, request.method) {
            case (nil, _):
                let collection = try require(id, user: user, role: .reader)
                return RESTJSON.response(status: 200, CollectionBody(id: id, collection))
            case ("documents", .get): return try listDocuments(request, id, user: user)
            case ("documents", _): return try changeDocuments(request, id, user: user)
            default: return try changeMembers(request, id, user: user)
            }
        } catch {
            return RESTError.response(error)
        }
    }

    // MARK: Calls

    private func create(_ request: HTTPRequest, user: String) throws(AccordError) -> HTTPResponse {
        let body = try JSONBody(request.body, allowedKeys: ["id", "title"])
        let id = try body.string("id") ?? GeneratedDocumentID.make().rawValue
        try CollectionStore.validateID(id)
        let title = try body.string("title") ?? ""
        try DocumentsAPI.validate(title: title, tags: [])
        let result = try update(id) { collection throws(AccordError) in
            guard collection == nil else {
                throw AccordError(.collectionExists, "collection \(id) exists", details: ["collection": id])
            }
            collection = .init(owner: user, title: title, members: [user: .owner], documents: [])
        }
        guard let created = result.after else { throw AccordError(.storageError, "collection \(id) was not stored") }
        return RESTJSON.response(status: 201, CollectionBody(id: id, created))
    }

    private func changeDocuments(_ request: HTTPRequest, _ id: String, user: String) throws(AccordError) -> HTTPResponse {
        let raw: String
        if request.method == .put {
            raw = try JSONBody(request.body, allowedKeys: ["document"]).requiredString("document")
        } else {
            guard let named = request.queryValue("document") else {
                throw AccordError(.invalidArgument, "name the document: ?document=<id>", details: ["field": "document"])
            }
            raw = named
        }
        let document = try DocumentID(validating: raw)
        let collection = try require(id, user: user, role: .owner)
        guard try directory.documents.contains(document) else {
            throw AccordError(.documentNotFound, "no document \(document)", details: ["document": document.rawValue])
        }
        let row = try directory.access.access(document)
        _ = try DocumentsAPI.requireRole(.owner, of: user, in: row, on: document, groups: directory.access)
        let users = Set(collection.members.keys)
        let before = try roles(of: users, on: document)
        let adding = request.method == .put
        let result = try update(id) { stored in
            stored?.documents.removeAll { $0 == document.rawValue }
            if adding { stored?.documents.append(document.rawValue) }
            stored?.documents.sort()
        }
        if result.before != result.after { report(document, users: users, before: before) }
        return RESTJSON.response(status: 200, CollectionBody(id: id, result.after ?? collection))
    }

    private func changeMembers(_ request: HTTPRequest, _ id: String, user: String) throws(AccordError) -> HTTPResponse {
        let member: String
        var role: Role?
        if request.method == .put {
            let body = try JSONBody(request.body, allowedKeys: ["user", "role"])
            member = try body.requiredString("user")
            role = try body.role("role")
        } else {
            guard let named = request.queryValue("user") else {
                throw AccordError(.invalidArgument, "name the member: ?user=<id>", details: ["field": "user"])
            }
            member = named
        }
        try DocumentsAPI.validateUser(member)
        let collection = try require(id, user: user, role: .owner)
        guard member != collection.owner else {
            throw AccordError(
                .invalidArgument, "the collection's owner keeps the role owner", details: ["user": member])
        }
        let documents = collection.documents.compactMap { DocumentID(rawValue: $0) }
        var before: [DocumentID: [String: Role?]] = [:]
        for document in documents { before[document] = try roles(of: [member], on: document) }
        let result = try update(id) { stored in stored?.members[member] = role }
        if result.before != result.after {
            for document in documents { report(document, users: [member], before: before[document] ?? [:]) }
        }
        return RESTJSON.response(status: 200, CollectionBody(id: id, result.after ?? collection))
    }

    private func listDocuments(_ request: HTTPRequest, _ id: String, user: String) throws(AccordError) -> HTTPResponse {
        let limit = try DocumentsAPI.pageSize(request.queryValue("limit"))
        var after: String?
        if let cursor = request.queryValue("cursor") {
            guard let bytes = Base64URL.decode(cursor.utf8), let text = String(validating: bytes, as: UTF8.self) else {
                throw AccordError(.invalidArgument, "not a cursor this listing gave out", details: ["field": "cursor"])
            }
            after = text
        }
        let collection = try require(id, user: user, role: .reader)
        var documents: [DocumentBody] = []
        var next: String?
        for raw in collection.documents {
            if let after, !after.utf8.lexicographicallyPrecedes(raw.utf8) { continue }
            guard let document = DocumentID(rawValue: raw), try directory.documents.contains(document),
                  let row = try directory.access.access(document),
                  let role = try directory.access.effectiveRole(of: user, in: row, on: document)
            else { continue }
            if documents.count == limit {
                next = Base64URL.encode(Array((documents.last?.id ?? "").utf8))
                break
            }
            var body = DocumentBody(
                try directory.documents.metadata(document), permission: role, owner: row.owner,
                details: try directory.details(document))
            body.source = "collection"
            documents.append(body)
        }
        return RESTJSON.response(status: 200, PageBody(documents: documents, nextCursor: next))
    }

    // MARK: Helpers

    /// The collection if `user` has at least `role` in it: `COLLECTION_NOT_FOUND`, or
    /// `PERMISSION_DENIED` (not a member, or too low a role).
    private func require(_ id: String, user: String, role minimum: Role) throws(AccordError) -> CollectionStore.Collection {
        guard let collection = try store.collection(id) else {
            throw AccordError(.collectionNotFound, "no collection \(id)", details: ["collection": id])
        }
        guard let role = collection.members[user], role >= minimum else {
            throw AccordError(
                .permissionDenied, "this needs the role \(minimum.rawValue) in collection \(id)",
                details: ["collection": id, "required": minimum.rawValue])
        }
        return collection
    }

    /// ``CollectionStore/update(_:_:)``, then the change told to the sync hub.
    private func update(
        _ id: String, _ change: (inout CollectionStore.Collection?) throws(AccordError) -> Void
    ) throws(AccordError) -> (before: CollectionStore.Collection?, after: CollectionStore.Collection?) {
        let result = try store.update(id, change)
        if result.before != result.after { collectionChanged(id) }
        return result
    }

    private func roles(of users: Set<String>, on document: DocumentID) throws(AccordError) -> [String: Role?] {
        let row = try directory.access.access(document)
        var result: [String: Role?] = [:]
        for user in users { result[user] = try directory.access.effectiveRole(of: user, in: row, on: document) }
        return result
    }

    /// Tells the sync hub who gained or lost what on `document`, and has it re-check the
    /// document's open connections.
    private func report(_ document: DocumentID, users: Set<String>, before: [String: Role?]) {
        let row = try? directory.access.access(document)
        var transitions: [RoleTransition] = []
        for user in users.sorted() {
            let after = (try? directory.access.effectiveRole(of: user, in: row, on: document)) ?? nil
            let old = before[user] ?? nil
            if old != after { transitions.append(RoleTransition(user: user, before: old, after: after)) }
        }
        if !transitions.isEmpty {
            directoryChanged(.roles(document, transitions, cause: DirectoryMessage.Cause.collection))
        }
        accessChanged(document)
    }

    private static func notAllowed(_ methods: [HTTPMethod]) -> HTTPResponse {
        HTTPResponse(
            status: 405, text: "method not allowed\n",
            headers: [(name: "allow", value: methods.map(\.rawValue).joined(separator: ", "))])
    }
}

/// A collection: `{"id","owner","title","members":{user: role},"documents":[id...]}`.
struct CollectionBody: Encodable {
    var id: String
    var owner: String
    var title: String
    var members: [String: Role]
    var documents: [String]

    init(id: String, _ collection: CollectionStore.Collection) {
        self.id = id
        owner = collection.owner
        title = collection.title
        members = collection.members
        documents = collection.documents
    }
}
