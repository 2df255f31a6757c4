import Foundation
import AccordCRDT
import AccordNet
import AccordStore

extension DocumentsAPI {
    /// `/v1/documents/{id}/access-requests`:
    ///
    /// - `POST {"permission": "reader"|"read-write", "message"?}`: any signed-in user
    ///   asks for a permission above their own (`INVALID_ARGUMENT` when they have it
    ///   already; never for a root document). Asking again while a request is pending
    ///   updates it (200); a new one is 201. The answer is the request.
    /// - `GET`: the owner lists the requests, `{"requests": [...]}`, oldest first.
    ///
    /// Requests are checked and stored under the access row's lock, so an approval and
    /// a re-request cannot interleave.
    func accessRequests(_ request: HTTPRequest, _ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        let now = Self.milliseconds(self.now())
        if request.method == .get {
            try requireDocument(id)
            let row = try directory.access.access(id)
            _ = try Self.requireRole(.owner, of: user, in: row, on: id, groups: directory.access)
            let requests = try directory.accessRequests(id).map { AccessRequestBody($0, now: now) }
            return RESTJSON.response(status: 200, ["requests": requests])
        }
        let body = try JSONBody(request.body, allowedKeys: ["permission", "message"])
        let permission = try body.role("permission")
        let message = try body.string("message") ?? ""
        guard permission != .owner else {
            throw AccordError(.invalidArgument, "ask for reader or read-write", details: ["field": "permission"])
        }
        guard message.utf8.count <= AccessRequest.maxMessageBytes else {
            throw AccordError(
                .invalidArgument, "a message has at most \(AccessRequest.maxMessageBytes) bytes", details: ["field": "message"])
        }
        try requireDocument(id)
        var answer: (AccessRequest, created: Bool)?
        _ = try directory.access.update(id) { row throws(AccordError) in
            guard let current = row else {
                throw AccordError(.docAccessDenied, "no access to document \(id)", details: ["document": id.rawValue])
            }
            try Self.refuseRoot(current, id, "shared")
            if let role = try directory.access.effectiveRole(of: user, in: current, on: id), role >= permission {
                throw AccordError(
                    .invalidArgument, "you have the role \(role.rawValue) on document \(id) already",
                    details: ["document": id.rawValue, "role": role.rawValue])
            }
            var requests = try directory.accessRequests(id)
            if let index = requests.firstIndex(where: { $0.user == user && $0.status(at: now) == "pending" }) {
                requests[index].permission = permission
                requests[index].message = message
                requests[index].updated = now
                answer = (requests[index], false)
            } else {
                guard requests.filter({ $0.status(at: now) == "pending" }).count < AccessRequest.maxPending else {
                    throw AccordError(
                        .tooManyDocuments, "document \(id) has \(AccessRequest.maxPending) pending access requests",
                        details: ["document": id.rawValue, "limit": String(AccessRequest.maxPending)])
                }
                let made = AccessRequest(
                    id: GeneratedDocumentID.make().rawValue, user: user, permission: permission, message: message,
                    status: "pending", created: now, updated: now, resolvedBy: nil)
                requests.append(made)
                answer = (made, true)
            }
            try directory.setAccessRequests(requests, for: id)
        }
        guard let (made, created) = answer else { throw AccordError(.storageError, "the access request was not stored") }
        return RESTJSON.response(status: created ? 201 : 200, AccessRequestBody(made, now: now))
    }

    /// `POST /v1/documents/{id}/access-requests/{request}/approve` (grants the asked
    /// permission as a direct grant, as `PUT …/permissions` would) or `…/deny`; owner
    /// only. A request approved, denied or expired is `ACCESS_REQUEST_RESOLVED` (409).
    /// The optional body `{"documentUrl"}` goes into the notification that tells the
    /// requester the outcome (queued in the outbox when the server has one).
    func decideAccessRequest(
        _ request: HTTPRequest, _ id: DocumentID, _ requestID: String, approve: Bool, user: String
    ) throws(AccordError) -> HTTPResponse {
        let now = Self.milliseconds(self.now())
        let documentUrl = try JSONBody.optional(request.body, allowedKeys: ["documentUrl"])?.string("documentUrl")
        if let documentUrl, documentUrl.utf8.count > ServerNotification.maxDocumentURLBytes {
            throw AccordError(
                .invalidArgument, "documentUrl has at most \(ServerNotification.maxDocumentURLBytes) bytes",
                details: ["field": "documentUrl"])
        }
        try requireDocument(id)
        var before: DocumentAccess?
        var decided: AccessRequest?
        let result = try directory.access.update(id) { row throws(AccordError) in
            before = row
            _ = try Self.requireRole(.owner, of: user, in: row, on: id, groups: directory.access)
            var requests = try directory.accessRequests(id)
            guard let index = requests.firstIndex(where: { $0.id == requestID }) else {
                throw AccordError(
                    .accessRequestNotFound, "document \(id) has no access request \(requestID)",
                    details: ["document": id.rawValue, "request": requestID])
            }
            let status = requests[index].status(at: now)
            guard status == "pending" else {
                throw AccordError(
                    .accessRequestResolved, "the access request is \(status)",
                    details: ["document": id.rawValue, "request": requestID, "status": status])
            }
            requests[index].status = approve ? "approved" : "denied"
            requests[index].updated = now
            requests[index].resolvedBy = user
            let requester = requests[index].user
            if approve, var access = row, requester != access.owner {
                try Self.refuseRoot(access, id, "shared")
                if access.members[requester] == nil {
                    access.setMemberListing(requester, try directory.appendShared(id, member: requester))
                }
                // Never lower an existing grant by approving a smaller request.
                access.members[requester] = max(access.members[requester] ?? requests[index].permission, requests[index].permission)
                row = access
            }
            try directory.setAccessRequests(requests, for: id)
            decided = requests[index]
        }
        if result.changed { reportAccess(id, before: before, after: result.access, cause: DirectoryMessage.Cause.grant) }
        guard let decided else { throw AccordError(.storageError, "the decision was not stored") }
        try notifications?.enqueue(
            ServerNotification(
                type: approve ? ServerNotification.accessRequestApproved : ServerNotification.accessRequestDenied,
                document: id.rawValue, documentUrl: documentUrl, from: user, toUser: decided.user,
                permission: decided.permission, accessRequest: decided.id, createdAt: now),
            now: now)
        return RESTJSON.response(status: 200, AccessRequestBody(decided, now: now))
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// An access request as the API answers it, dates in ISO 8601.
struct AccessRequestBody: Encodable {
    var id: String
    var user: String
    var permission: Role
    var message: String
    var status: String
    var created: String
    var updated: String
    var resolvedBy: String?

    init(_ request: AccessRequest, now: Int64) {
        id = request.id
        user = request.user
        permission = request.permission
        message = request.message
        status = request.status(at: now)
        created = DocumentBody.dateStyle.format(Date(timeIntervalSince1970: Double(request.created) / 1000))
        updated = DocumentBody.dateStyle.format(Date(timeIntervalSince1970: Double(request.updated) / 1000))
        resolvedBy = request.resolvedBy
    }
}
