import AccordCRDT
import AccordNet
import AccordStore

/// Groups over REST (`docs/server-api.md`, Groups):
///
/// | call | who | answer |
/// |---|---|---|
/// | `GET /v1/admin/groups/{type}/{id}` | admin | `{"groupType","groupId","members":[...]}` |
/// | `PUT /v1/admin/groups/{type}/{id}/members` `{"users":[...]}` | admin | the group |
/// | `DELETE /v1/admin/groups/{type}/{id}/members` `{"users":[...]}` or `?user=` | admin | the group |
/// | `GET /v1/groups/{type}/{id}/documents?limit=&cursor=` | a member, or an admin | page of documents |
///
/// Admins are the server's (`--admins`, ``AccordServer/Configuration/adminUsers``, as
/// for the other admin routes) and the holders of a token with the `admin` claim
/// (`accord token --admin`). A membership change takes effect at once: the sync hub
/// re-checks the open connections of every document granted to the group (a removed
/// member's next message is refused) and tells the users whose role changed.
struct GroupsAPI: Sendable {
    let directory: DocumentDirectory
    let admins: Set<String>
    let authenticate: @Sendable (HTTPRequest) throws(AccordError) -> String
    /// Whether the request's token carries the `admin` claim.
    let adminClaim: @Sendable (HTTPRequest) -> Bool
    /// After a membership change, outside any lock.
    let membershipChanged: @Sendable (GroupKey, _ added: Set<String>, _ removed: Set<String>) -> Void

    static let adminPrefix = "/v1/admin/groups/"
    static let memberPrefix = "/v1/groups/"

    func register(in routes: inout HTTPRoutes) {
        let handler: HTTPRoutes.Handler = { request in respond(to: request) }
        for method in [HTTPMethod.get, .put, .delete] { routes.add(method, prefix: Self.adminPrefix, handler) }
        routes.add(.get, prefix: Self.memberPrefix, handler)
    }

    private var groups: GroupStore { directory.access.groups }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        let admin = request.path.utf8.starts(with: Self.adminPrefix.utf8)
        let rest = String(decoding: request.path.utf8.dropFirst((admin ? Self.adminPrefix : Self.memberPrefix).utf8.count), as: UTF8.self)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // {type}/{id}, {type}/{id}/members (admin) or {type}/{id}/documents (members).
        let route: (type: String, id: String, tail: String?)?
        switch parts.count {
        case 2: route = (parts[0], parts[1], nil)
        case 3: route = (parts[0], parts[1], parts[2])
        default: route = nil
        }
        guard let route else { return HTTPResponse(status: 404, text: "not found\n") }
        switch (admin, route.tail, request.method) {
        case (true, nil, .get), (true, "members", .put), (true, "members", .delete), (false, "documents", .get): break
        case (true, nil, _): return Self.notAllowed([.get])
        case (true, "members", _): return Self.notAllowed([.put, .delete])
        case (false, "documents", _): return Self.notAllowed([.get])
        default: return HTTPResponse(status: 404, text: "not found\n")
        }
        do throws(AccordError) {
            let user = try UserIDRule.signedIn(authenticate(request))
            let group = try GroupKey(groupType: route.type, groupID: route.id)
            let isAdmin = admins.contains(user) || adminClaim(request)
            if admin {
                guard isAdmin else {
                    throw AccordError(
                        .permissionDenied, "groups are managed by the server's admins", details: ["required": "admin"])
                }
                if route.tail == nil { return groupResponse(group, members: try groups.members(of: group)) }
                return try changeMembers(request, group)
            }
            return try listDocuments(request, group, user: user, isAdmin: isAdmin)
        } catch {
            return RESTError.response(error)
        }
    }

    private func changeMembers(_ request: HTTPRequest, _ group: GroupKey) throws(AccordError) -> HTTPResponse {
        var users: [String]
        if request.method == .delete, let one = request.queryValue("user") {
            guard request.body.isEmpty else {
                throw AccordError(.invalidArgument, "name the users in the query or the body, not both", details: ["field": "users"])
            }
            users = [one]
        } else {
            let body = try JSONBody(request.body, allowedKeys: ["users"])
            guard let listed = try body.strings("users") else {
                throw AccordError(.invalidArgument, "the body needs \"users\": [user id, ...]", details: ["field": "users"])
            }
            users = listed
        }
        guard users.count <= Self.maxUsersPerCall else {
            throw AccordError(
                .invalidArgument, "at most \(Self.maxUsersPerCall) users per call", details: ["field": "users"])
        }
        for user in users { try DocumentsAPI.validateUser(user) }
        let before = try groups.members(of: group)
        let named = Set(users)
        let adding = request.method == .put
        let changed = try groups.update(group, adding: adding ? named : [], removing: adding ? [] : named)
        let after = try groups.members(of: group)
        if changed { membershipChanged(group, after.subtracting(before), before.subtracting(after)) }
        return groupResponse(group, members: after)
    }

    static let maxUsersPerCall = 10_000

    /// The documents granted to the group, by id, each as the caller sees it.
    private func listDocuments(
        _ request: HTTPRequest, _ group: GroupKey, user: String, isAdmin: Bool
    ) throws(AccordError) -> HTTPResponse {
        let limitText = request.queryValue("limit") ?? "50"
        guard let limit = Int(limitText), (1...200).contains(limit) else {
            throw AccordError(.invalidArgument, "limit is 1 to 200", details: ["field": "limit"])
        }
        var after: String?
        if let cursor = request.queryValue("cursor") {
            guard let bytes = Base64URL.decode(cursor.utf8), let id = String(validating: bytes, as: UTF8.self) else {
                throw AccordError(.invalidArgument, "not a cursor this listing gave out", details: ["field": "cursor"])
            }
            after = id
        }
        let userGroups = try groups.groups(of: user)
        guard userGroups.contains(group) || isAdmin else {
            throw AccordError(
                .permissionDenied, "only the group's members may list its documents",
                details: ["groupType": group.groupType, "groupId": group.groupID])
        }
        var documents: [DocumentBody] = []
        var next: String?
        for id in try groups.documents(of: group) {
            if let after, !after.utf8.lexicographicallyPrecedes(id.rawValue.utf8) { continue }
            guard try directory.documents.contains(id), let row = try directory.access.access(id),
                  row.groups?[group.rawValue] != nil, let role = row.role(of: user, inGroups: userGroups.union([group]))
            else { continue }
            if documents.count == limit {
                next = Base64URL.encode(Array((documents.last?.id ?? "").utf8))
                break
            }
            var body = DocumentBody(
                try directory.documents.metadata(id), permission: role, owner: row.owner, details: try directory.details(id))
            body.source = "group"
            documents.append(body)
        }
        return RESTJSON.response(status: 200, PageBody(documents: documents, nextCursor: next))
    }

    private func groupResponse(_ group: GroupKey, members: Set<String>) -> HTTPResponse {
        RESTJSON.response(
            status: 200, GroupBody(groupType: group.groupType, groupId: group.groupID, members: members.sorted()))
    }

    private static func notAllowed(_ methods: [HTTPMethod]) -> HTTPResponse {
        HTTPResponse(
            status: 405, text: "method not allowed\n",
            headers: [(name: "allow", value: methods.map(\.rawValue).joined(separator: ", "))])
    }
}

struct GroupBody: Encodable {
    var groupType: String
    var groupId: String
    var members: [String]
}
