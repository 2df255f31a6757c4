import AccordCRDT
import AccordNet
import AccordStore

extension DocumentsAPI {
    /// `/v1/documents/{id}/groups` (owner only; never a root document). Both answer 200
    /// with the permissions body, which lists `groups` (`type/id` → role) when any.
    ///
    /// - `PUT {"groupType", "groupId", "role": "reader"|"read-write"}` grants the group's
    ///   members that role, replacing an earlier grant to the group; `owner` is refused.
    ///   It follows membership: a user has it while they are a member.
    /// - `DELETE ?groupType=&groupId=` removes the group's grant (absent: nothing changes).
    func groupGrant(_ request: HTTPRequest, _ id: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        let group: GroupKey
        var role: Role?
        if request.method == .put {
            let body = try JSONBody(request.body, allowedKeys: ["groupType", "groupId", "role"])
            group = try GroupKey(groupType: try body.requiredString("groupType"), groupID: try body.requiredString("groupId"))
            let granted = try body.role("role")
            guard granted != .owner else {
                throw AccordError(.invalidArgument, "a group is granted reader or read-write", details: ["field": "role"])
            }
            role = granted
        } else {
            guard let type = request.queryValue("groupType"), let groupID = request.queryValue("groupId") else {
                throw AccordError(
                    .invalidArgument, "name the group: ?groupType=<type>&groupId=<id>", details: ["field": "groupType"])
            }
            group = try GroupKey(groupType: type, groupID: groupID)
        }
        try requireDocument(id)
        var before: DocumentAccess?
        let result = try directory.access.update(id) { row throws(AccordError) in
            before = row
            _ = try Self.requireRole(.owner, of: user, in: row, on: id, groups: directory.access)
            if role != nil { try Self.refuseRoot(row, id, "shared") }
            row?.setGroup(group, role)
        }
        if result.changed {
            try directory.access.groups.setGranted(id, to: group, role != nil)
            reportAccess(id, before: before, after: result.access, cause: DirectoryMessage.Cause.group)
        }
        guard let access = result.access else {
            throw AccordError(.docAccessDenied, "no access to document \(id)", details: ["document": id.rawValue])
        }
        return RESTJSON.response(status: 200, PermissionsBody(access))
    }
}
