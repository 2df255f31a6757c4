import AccordCRDT
import AccordNet
import AccordStore

extension DocumentsAPI {
    static let aliasPrefix = "/v1/aliases/user/"
    static let rootPath = "/v1/me/root"

    /// Adds the alias, root-document and listing routes (``register(in:)`` calls it).
    func registerAliases(in routes: inout HTTPRoutes) {
        let alias: HTTPRoutes.Handler = { request in respondToAlias(request) }
        for method in [HTTPMethod.get, .put, .post] { routes.add(method, prefix: Self.aliasPrefix, alias) }
        routes.add(.put, Self.rootPath) { request in respondToRoot(request) }
        routes.add(.get, Self.ownedPath) { request in respondToOwned(request) }
        routes.add(.get, Self.sharedPath) { request in respondToShared(request) }
    }

    /// The answer for the alias, root and listing paths with their methods, as
    /// ``registerAliases(in:)`` routes them; nil for any other request.
    func respondToUserRoute(_ request: HTTPRequest) -> HTTPResponse? {
        switch (request.method, request.path) {
        case (.put, Self.rootPath): return respondToRoot(request)
        case (.get, Self.ownedPath): return respondToOwned(request)
        case (.get, Self.sharedPath): return respondToShared(request)
        case (.get, _), (.put, _), (.post, _):
            return request.path.utf8.starts(with: Self.aliasPrefix.utf8) ? respondToAlias(request) : nil
        default: return nil
        }
    }

    /// `/v1/aliases/user/{aliasKey}`, for the signed-in user's own aliases:
    /// - `GET`: the document the alias names (404 `DOCUMENT_NOT_FOUND` without one);
    /// - `PUT {"title"?, "tags"?}`: get or create, atomically; 201 when created, else 200;
    /// - `POST {"title"?, "tags"?}`: create; 409 `ALIAS_EXISTS` when the alias names one.
    /// The answer is `{"created": bool, "document": <document body>}` (GET: the document body).
    func respondToAlias(_ request: HTTPRequest) -> HTTPResponse {
        let key = String(decoding: request.path.utf8.dropFirst(Self.aliasPrefix.utf8.count), as: UTF8.self)
        do throws(AccordError) {
            let user = try authenticatedUser(request)
            try DocumentDirectory.validateAliasKey(key)
            if request.method == .get {
                guard let id = try directory.resolveAlias(user: user, key: key) else {
                    throw AccordError(.documentNotFound, "no document has the alias \(key)", details: ["aliasKey": key])
                }
                return try document(id, user: user)
            }
            let body = try JSONBody.optional(request.body, allowedKeys: ["title", "tags"])
            let givenTitle = try body?.string("title")
            let givenTags = try body?.strings("tags")
            let title = givenTitle ?? "", tags = givenTags ?? []
            try Self.validate(title: title, tags: tags)
            let result = try directory.documentForAlias(
                user: user, key: key, title: title, tags: tags, mustCreate: request.method == .post)
            return try aliasResponse(result, user: user)
        } catch {
            return RESTError.response(error)
        }
    }

    /// `PUT /v1/me/root`: the signed-in user's root document, created on first use;
    /// 201 when created, else 200, with `{"created", "document"}`.
    func respondToRoot(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let user = try authenticatedUser(request)
            _ = try JSONBody.optional(request.body, allowedKeys: [])
            return try aliasResponse(try directory.rootDocument(of: user), user: user)
        } catch {
            return RESTError.response(error)
        }
    }

    private func aliasResponse(_ result: (id: DocumentID, created: Bool), user: String) throws(AccordError) -> HTTPResponse {
        if result.created { directoryChanged(.created(result.id, owner: user)) }
        let access = try directory.access.access(result.id)
        // The alias is the user's, but the document may since have gone to another owner
        // who revoked them: the usual role rule still decides.
        let role = try Self.requireRole(.reader, of: user, in: access, on: result.id, groups: directory.access)
        let metadata = try directory.documents.metadata(result.id)
        let details = try directory.details(result.id)
        let body = AliasBody(
            created: result.created,
            document: DocumentBody(metadata, permission: role, owner: access?.owner ?? "", details: details))
        return RESTJSON.response(status: result.created ? 201 : 200, body)
    }

    /// `ROOT_DOCUMENT_PROTECTED` for `action` on a root document.
    static func refuseRoot(_ access: DocumentAccess?, _ id: DocumentID, _ action: String) throws(AccordError) {
        if access?.isRoot == true {
            throw AccordError(
                .rootDocumentProtected, "a root document cannot be \(action)",
                details: ["document": id.rawValue, "action": action])
        }
    }
}

/// The alias routes' answer.
struct AliasBody: Encodable {
    var created: Bool
    var document: DocumentBody
}
