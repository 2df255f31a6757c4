public import AccordSync

/// Groups as an app sees them (`docs/sharing.md`, Groups): `client.groups.listDocuments`
/// for the documents granted to a group the user belongs to, and the document grants
/// in ``Documents/grantGroupPermission(_:groupType:groupId:permission:)``. Membership
/// itself is the server operator's (admin routes).
public struct Groups: Sendable {
    public let client: AccordClient

    /// One page of the documents granted to the group, by id, each with the caller's
    /// `permission` and `source` `"group"`. Members of the group (and the server's
    /// admins) only: others get `PERMISSION_DENIED`. `limit` is 1–200.
    public func listDocuments(groupType: String, groupId: String, limit: Int = 50, cursor: String? = nil)
        async throws(AccordError) -> DocumentPage
    {
        var query: [(name: String, value: String)] = [("limit", String(limit))]
        if let cursor { query.append(("cursor", cursor)) }
        let body = try await client.send(ServerCall(.get, ["v1", "groups", groupType, groupId, "documents"], query: query))
        return try SharingWire.page(body)
    }
}

extension AccordClient {
    /// The groups API.
    public nonisolated var groups: Groups { Groups(client: self) }
}

extension Documents {
    /// Grants every member of the group `permission` (`reader` or `readWrite`) on the
    /// document, for as long as they are members (owner only; replaces an earlier grant
    /// to the group). Returns the permissions after the change.
    @discardableResult
    public func grantGroupPermission(
        _ id: DocumentID, groupType: String, groupId: String, permission: DocumentPermission
    ) async throws(AccordError) -> DocumentPermissions {
        let body = SharingWire.body(["groupType": groupType, "groupId": groupId, "role": permission.rawValue])
        return try SharingWire.permissions(
            try await client.send(ServerCall(.put, ["v1", "documents", id.rawValue, "groups"], body: body)))
    }

    /// Removes the group's grant (owner only); removing one that does not exist succeeds.
    @discardableResult
    public func removeGroupPermission(_ id: DocumentID, groupType: String, groupId: String) async throws(AccordError)
        -> DocumentPermissions
    {
        let call = ServerCall(
            .delete, ["v1", "documents", id.rawValue, "groups"], query: [("groupType", groupType), ("groupId", groupId)])
        return try SharingWire.permissions(try await client.send(call))
    }
}
