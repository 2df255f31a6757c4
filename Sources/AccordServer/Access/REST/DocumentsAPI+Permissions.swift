import AccordCRDT
import AccordNet
import AccordStore

extension DocumentsAPI {
    /// `/v1/documents/{id}/permissions`, owner only. Every method answers 200 with the
    /// row after the call: `{"owner", "members": {user: role}, "linkAccess", "invitations": {email: role}}`.
    ///
    /// - `GET` reads the row.
    /// - `PUT {"user", "role"}` sets a member's role (`reader` or `read-write`), replacing
    ///   any earlier grant, so it also lowers one. `owner` is refused (ownership is not
    ///   transferable; the row keeps its one owner), and so is a grant to the owner.
    /// - `PUT {"email", "role"}` grants by address: to the user who claimed it (their
    ///   first request with a token carrying it) as above, else a pending invitation that
    ///   becomes their grant when they come (`DocumentDirectory+Invitations.swift`).
    /// - Either `PUT` takes `"sendEmail": true` and `"documentUrl"`: a `share`
    ///   notification goes to the outbox (``NotificationOutbox``).
    /// - `DELETE ?user=<id>` (or the body `{"user"}`; both must agree) revokes a grant;
    ///   `?email=` (or `{"email"}`) cancels the pending invitation to it, or revokes the
    ///   grant of the user who claimed it, whichever exists. Revoking what does not exist
    ///   changes nothing and succeeds; revoking the owner is refused. The link floor
    ///   still applies to a revoked user.
    func permissions(_ request: HTTPRequest, _ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        var target: PermissionTarget?
        var role: Role?
        var notify: Notify?
        switch request.method {
        case .put: (target, role, notify) = try grant(from: request)
        case .delete: target = try Self.revoked(from: request)
        default: break
        }
        try requireDocument(id)
        let access: DocumentAccess
        if case .email(let email)? = target {
            // Under the invitations lock, so a sign-in with this address cannot slip between.
            access = try directory.access.invitations.withLock { () throws(AccordError) -> DocumentAccess in
                if let claimed = try directory.access.invitations.user(of: email) {
                    return try change(id, .user(claimed), role: role, alsoCancelling: email, by: user)
                }
                return try change(id, .email(email), role: role, alsoCancelling: nil, by: user)
            }
        } else {
            access = try change(id, target, role: role, alsoCancelling: nil, by: user)
        }
        if let notify, let target, let role {
            try queueShare(id, to: target, role: role, notify, by: user)
        }
        return RESTJSON.response(status: 200, PermissionsBody(access))
    }

    /// Whom a grant or revoke names.
    enum PermissionTarget {
        case user(String)
        case email(EmailAddress)
    }

    /// `sendEmail: true` and its link.
    struct Notify {
        var documentUrl: String?
    }

    /// Applies a grant (`role` set) or revoke (`role` nil) to `target` (nil: only read)
    /// under the row's lock; `alsoCancelling` drops a pending invitation left for that
    /// address too. Reports the change. Returns the row after it.
    private func change(
        _ id: DocumentID, _ target: PermissionTarget?, role: Role?, alsoCancelling leftover: EmailAddress?, by user: String
    ) throws(AccordError) -> DocumentAccess {
        var before: DocumentAccess?
        let result = try directory.access.update(id) { row throws(AccordError) in
            before = row
            _ = try Self.requireRole(.owner, of: user, in: row, on: id, groups: directory.access)
            guard var access = row, let target else { return }
            switch (target, role) {
            case (.user(let member), let role?):
                try Self.refuseRoot(access, id, "shared")
                try Self.refuseOwner(member, of: access)
                if access.members[member] == nil {  // a new member: list it for them (last, after the checks)
                    access.setMemberListing(member, try directory.appendShared(id, member: member))
                }
                access.members[member] = role
            case (.user(let member), nil):
                try Self.refuseOwner(member, of: access)
                access.members[member] = nil
                access.setMemberListing(member, nil)
            case (.email(let email), let role?):
                try Self.refuseRoot(access, id, "shared")
                let earlier = access.invitations?[email.rawValue]
                if earlier == nil, (access.invitations?.count ?? 0) >= PendingInvitation.maxPerDocument {
                    throw AccordError(
                        .tooManyInvitations, "document \(id) has \(PendingInvitation.maxPerDocument) pending invitations",
                        details: ["document": id.rawValue, "limit": String(PendingInvitation.maxPerDocument)])
                }
                access.setInvitation(
                    email,
                    PendingInvitation(role: role, invitedBy: user, invitedAt: earlier?.invitedAt ?? Self.milliseconds(now())))
                try directory.indexInvitation(email, to: id)  // last: it writes
            case (.email(let email), nil):
                access.setInvitation(email, nil)
                try directory.unindexInvitation(email, from: id)
            }
            if let leftover, access.invitations?[leftover.rawValue] != nil {
                access.setInvitation(leftover, nil)
                try directory.unindexInvitation(leftover, from: id)
            }
            row = access
        }
        if result.changed {
            reportAccess(id, before: before, after: result.access, cause: role == nil ? DirectoryMessage.Cause.revoke : DirectoryMessage.Cause.grant)
        }
        guard let access = result.access else {
            // requireRole passed, so there was a row and the change keeps it.
            throw AccordError(.docAccessDenied, "no access to document \(id)", details: ["document": id.rawValue])
        }
        return access
    }

    private func grant(from request: HTTPRequest) throws(AccordError) -> (PermissionTarget, Role, Notify?) {
        let body = try JSONBody(request.body, allowedKeys: ["user", "email", "role", "sendEmail", "documentUrl"])
        let target: PermissionTarget
        switch (try body.string("user"), try body.string("email")) {
        case (let member?, nil):
            try Self.validateUser(member)
            target = .user(member)
        case (nil, let email?):
            target = .email(try EmailAddress(validating: email))
        default:
            throw AccordError(
                .invalidArgument, "name exactly one of user and email", details: ["field": "user"])
        }
        let role = try body.role("role")
        guard role != .owner else {
            throw AccordError(
                .invalidArgument, "the role owner cannot be granted; transfer ownership with PUT …/owner",
                details: ["field": "role"])
        }
        return (target, role, try notify(from: body))
    }

    /// `sendEmail` and `documentUrl` of a body: nil without `sendEmail: true`.
    /// - Throws: `INVALID_ARGUMENT` for an over-long URL, or `sendEmail` on a server
    ///   without an outbox (nothing would be sent).
    func notify(from body: JSONBody) throws(AccordError) -> Notify? {
        let url = try body.string("documentUrl")
        if let url, url.utf8.count > ServerNotification.maxDocumentURLBytes {
            throw AccordError(
                .invalidArgument, "documentUrl has at most \(ServerNotification.maxDocumentURLBytes) bytes",
                details: ["field": "documentUrl"])
        }
        guard try body.bool("sendEmail") == true else { return nil }
        guard notifications != nil else {
            throw AccordError(.invalidArgument, "this server keeps no notification outbox", details: ["field": "sendEmail"])
        }
        return Notify(documentUrl: url)
    }

    private static func revoked(from request: HTTPRequest) throws(AccordError) -> PermissionTarget {
        let body = try JSONBody.optional(request.body, allowedKeys: ["user", "email"])
        let user = try agreeing("user", request.queryValue("user"), try body?.string("user"))
        let email = try agreeing("email", request.queryValue("email"), try body?.string("email"))
        switch (user, email) {
        case (let member?, nil):
            try validateUser(member)
            return .user(member)
        case (nil, let address?):
            return .email(try EmailAddress(validating: address))
        case (nil, nil):
            throw AccordError(
                .invalidArgument, "name whom to revoke: ?user=<id>, ?email=<address> or the same in the body",
                details: ["field": "user"])
        default:
            throw AccordError(.invalidArgument, "name either a user or an email, not both", details: ["field": "user"])
        }
    }

    /// The value of `field` from the query or the body; both given must agree.
    private static func agreeing(_ field: String, _ query: String?, _ body: String?) throws(AccordError) -> String? {
        if let query, let body, query != body {
            throw AccordError(
                .invalidArgument, "the query and the body name different values of \(field)", details: ["field": field])
        }
        return query ?? body
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
