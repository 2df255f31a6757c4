import AccordCRDT
import AccordNet
import AccordStore

extension DocumentsAPI {
    /// `PUT /v1/documents/{id}/owner` with `{"user": string}` (owner only): makes `user`
    /// the owner. The previous owner keeps read-write access as a member (so handing a
    /// document over never locks its author out; they may be revoked afterwards), and
    /// the new owner's own grant goes (the owner needs none). Naming the current owner
    /// changes nothing. 200 with the permissions body.
    func transferOwnership(_ request: HTTPRequest, _ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        let newOwner = try JSONBody(request.body, allowedKeys: ["user"]).requiredString("user")
        try Self.validateUser(newOwner)
        try requireDocument(id)
        var before: DocumentAccess?
        let result = try directory.access.update(id) { row throws(AccordError) in
            before = row
            _ = try Self.requireRole(.owner, of: user, in: row, on: id, groups: directory.access)
            try Self.refuseRoot(row, id, "transferred")
            guard var access = row, access.owner != newOwner else { return }
            access.members[access.owner] = .readWrite
            access.members[newOwner] = nil
            access.setMemberListing(newOwner, nil)
            // Last, after every check: the new owner lists it as owned, the previous
            // one as shared with them.
            access.setMemberListing(access.owner, try directory.appendShared(id, member: access.owner))
            access.owner = newOwner
            access.ownerListing = try directory.appendOwned(id, owner: newOwner)
            row = access
        }
        if result.changed {
            reportAccess(id, before: before, after: result.access, cause: DirectoryMessage.Cause.transfer)
        }
        guard let access = result.access else {
            throw AccordError(.docAccessDenied, "no access to document \(id)", details: ["document": id.rawValue])
        }
        return RESTJSON.response(status: 200, PermissionsBody(access))
    }
}
