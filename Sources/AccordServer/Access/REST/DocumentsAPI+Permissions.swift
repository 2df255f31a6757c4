import AccordCRDT
import AccordNet
import AccordStore

extension DocumentsAPI {
    /// `/v1/documents/{id}/permissions`, owner only. Every method answers 200 with the
    /// row after the call: `{"owner", "members": {user: role}, "linkAccess"}`.
    ///
    /// - `GET` reads the row.
    /// - `PUT {"user", "role"}` sets a member's role (`reader` or `read-write`), replacing
    ///   any earlier grant, so it also lowers one. `owner` is refused (ownership is not
    ///   transferable; the row keeps its one owner), and so is a grant to the owner.
    /// - `DELETE ?user=<id>` (or the body `{"user"}`; both must agree) revokes a grant.
    ///   Revoking a user without a grant changes nothing and succeeds; revoking the
    ///   owner is refused. The link floor still applies to a revoked user.
    func permissions(_ request: HTTPRequest, _ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        let change: PermissionChange
        switch request.method {
        case .put: change = try Self.grant(from: request)
        case .delete: change = .revoke(try Self.revokedUser(from: request))
        default: change = .none
        }
        try requireDocument(id)
        var before: DocumentAccess?
        let result = try directory.access.update(id) { row throws(AccordError) in
            before = row
            _ = try Self.requireRole(.owner, of: user, in: row, on: id, groups: directory.access)
            guard var access = row else { return }
            switch change {
            case .none:
                return
            case .grant(let member, let role):
                try Self.refuseRoot(access, id, "shared")
                try Self.refuseOwner(member, of: access)
                if access.members[member] == nil {  // a new member: list it for them (last, after the checks)
                    access.setMemberListing(member, try directory.appendShared(id, member: member))
                }
                access.members[member] = role
            case .revoke(let member):
                try Self.refuseOwner(member, of: access)
                access.members[member] = nil
                access.setMemberListing(member, nil)
            }
            row = access
        }
        if result.changed {
            let cause = if case .revoke = change { DirectoryMessage.Cause.revoke } else { DirectoryMessage.Cause.grant }
            reportAccess(id, before: before, after: result.access, cause: cause)
        }
        guard let access = result.access else {
            // requireRole passed, so there was a row and the change keeps it.
            throw AccordError(.docAccessDenied, "no access to document \(id)", details: ["document": id.rawValue])
        }
        return RESTJSON.response(status: 200, PermissionsBody(access))
    }

    private enum PermissionChange {
        case none
        case grant(String, Role)
        case revoke(String)
    }

    private static func grant(from request: HTTPRequest) throws(AccordError) -> PermissionChange {
        let body = try JSONBody(request.body, allowedKeys: ["user", "role"])
        let member = try body.requiredString("user")
        try validateUser(member)
        let role = try body.role("role")
        guard role != .owner else {
            throw AccordError(
                .invalidArgument, "the role owner cannot be granted; transfer ownership with PUT …/owner",
                details: ["field": "role"])
        }
        return .grant(member, role)
    }

    private static func revokedUser(from request: HTTPRequest) throws(AccordError) -> String {
        let fromQuery = request.queryValue("user")
        let fromBody = try JSONBody.optional(request.body, allowedKeys: ["user"])?.requiredString("user")
        let member: String
        switch (fromQuery, fromBody) {
        case (let query?, let body?) where query != body:
            throw AccordError(
                .invalidArgument, "the query and the body name different users", details: ["field": "user"])
        case (let query?, _): member = query
        case (nil, let body?): member = body
        case (nil, nil):
            throw AccordError(
                .invalidArgument, "name the user to revoke: ?user=<id> or {\"user\": ...}", details: ["field": "user"])
        }
        try validateUser(member)
        return member
    }

    static func validateUser(_ user: String) throws(AccordError) {
        do {
            try UserIDRule.validate(user)
        } catch {
            throw AccordError(.invalidArgument, error.message, details: ["field": "user"])
        }
    }

    private static func refuseOwner(_ member: String, of access: DocumentAccess) throws(AccordError) {
        if member == access.owner {
            throw AccordError(
                .invalidArgument, "the owner's role cannot be granted or revoked", details: ["user": member])
        }
    }
}
