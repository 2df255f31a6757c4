public import AccordCRDT
import AccordSync

/// Sharing and the server's directory, over the REST API (`docs/sharing.md`). Every
/// call needs the server: offline it fails with `NETWORK_ERROR` (retry later), and a
/// refusal carries the server's code (`DOC_ACCESS_DENIED`, `PERMISSION_DENIED`,
/// `DOCUMENT_NOT_FOUND`, `INVALID_ARGUMENT`, ...) with its `httpStatus` and `details`.
extension Documents {
    /// The document's metadata on the server and the caller's permission (any role).
    public func get(_ id: DocumentID) async throws(AccordError) -> DocumentInfo {
        try SharingWire.info(try await client.send(ServerCall(.get, Self.path(id))))
    }

    /// Owner, members and link access (owner only).
    public func getPermissions(_ id: DocumentID) async throws(AccordError) -> DocumentPermissions {
        try SharingWire.permissions(try await client.send(ServerCall(.get, Self.path(id, "permissions"))))
    }

    /// Grants users a permission (owner only). Idempotent; the latest grant for a user
    /// wins. A batch is applied in order and stops at the first refusal (the grants
    /// before it stay). Returns the permissions after the last grant.
    ///
    /// With `sendEmail`, the server queues a `share` notification per grant for its
    /// webhook (`docs/server-api.md`, Notifications), with `documentUrl` as the link.
    ///
    /// - Throws: `INVALID_EMAIL` for a malformed address, `TOO_MANY_INVITATIONS`,
    ///   `PERMISSION_DENIED`, `ROOT_DOCUMENT_PROTECTED`, `NETWORK_ERROR`, ...
    @discardableResult
    public func updatePermissions(
        _ id: DocumentID, _ grant: PermissionGrant, sendEmail: Bool = false, documentUrl: String? = nil
    ) async throws(AccordError) -> DocumentPermissions {
        let grants = grant.singleGrants
        guard !grants.isEmpty else { return try await getPermissions(id) }
        var body: [UInt8] = []
        for (field, value, permission) in grants {
            var fields = OrderedObject()
            fields[field] = .string(value)
            fields["role"] = .string(permission.rawValue)
            if sendEmail {
                fields["sendEmail"] = .bool(true)
                if let documentUrl { fields["documentUrl"] = .string(documentUrl) }
            }
            body = try await client.send(ServerCall(.put, Self.path(id, "permissions"), body: SharingWire.body(fields)))
        }
        return try SharingWire.permissions(body)
    }

    /// The invitations to addresses nobody has signed in with yet (owner only), by address.
    public func listPendingInvitations(_ id: DocumentID) async throws(AccordError) -> [InvitationInfo] {
        try SharingWire.invitations(try await client.send(ServerCall(.get, Self.path(id, "invitations"))))
    }

    /// Removes a member's grant, or cancels a pending invitation (owner only); removing
    /// one that does not exist succeeds. Link access still applies to them.
    @discardableResult
    public func removePermission(_ id: DocumentID, _ holder: PermissionHolder) async throws(AccordError)
        -> DocumentPermissions
    {
        switch holder {
        case .userID(let user):
            let call = ServerCall(.delete, Self.path(id, "permissions"), query: [("user", user)])
            return try SharingWire.permissions(try await client.send(call))
        case .email(let email):
            let call = ServerCall(.delete, Self.path(id, "permissions"), query: [("email", email)])
            return try SharingWire.permissions(try await client.send(call))
        }
    }

    /// Sets the floor every signed-in user gets (`reader` or `readWrite`; owner or
    /// read-write editors).
    @discardableResult
    public func setLinkAccess(_ id: DocumentID, _ level: DocumentPermission) async throws(AccordError) -> LinkAccess {
        let body = SharingWire.body(["role": level.rawValue])
        return try SharingWire.linkAccess(try await client.send(ServerCall(.put, Self.path(id, "link-access"), body: body)))
    }

    /// The link access level, who last changed it and when (any role).
    public func getLinkAccess(_ id: DocumentID) async throws(AccordError) -> LinkAccess {
        try SharingWire.linkAccess(try await client.send(ServerCall(.get, Self.path(id, "link-access"))))
    }

    /// Removes link access (owner or read-write editors); idempotent.
    @discardableResult
    public func clearLinkAccess(_ id: DocumentID) async throws(AccordError) -> LinkAccess {
        try SharingWire.linkAccess(try await client.send(ServerCall(.delete, Self.path(id, "link-access"))))
    }

    /// Changes the document's directory entry (owner or read-write). A `nil` title or
    /// tags, and `.unchanged`, leave a field as it is; `.clear` removes it; `metadata`
    /// replaces the whole value. Returns the entry after the change.
    ///
    /// - Throws: `METADATA_TOO_LARGE` over 4 KB of JSON, `INVALID_ARGUMENT`,
    ///   `PERMISSION_DENIED`, `NETWORK_ERROR`, ...; a refusal changes nothing.
    @discardableResult
    public func update(
        _ id: DocumentID, title: String? = nil, tags: [String]? = nil,
        thumbnailBlobID: FieldChange<String> = .unchanged, metadata: FieldChange<AnyValue> = .unchanged
    ) async throws(AccordError) -> DocumentInfo {
        var fields = OrderedObject()
        if let title { fields["title"] = .string(title) }
        if let tags { fields["tags"] = .array(tags.map(AnyValue.string)) }
        switch thumbnailBlobID {
        case .unchanged: break
        case .set(let value): fields["thumbnailBlobId"] = .string(value)
        case .clear: fields["thumbnailBlobId"] = .null
        }
        switch metadata {
        case .unchanged: break
        case .set(let value): fields["metadata"] = value
        case .clear: fields["metadata"] = .null
        }
        let call = ServerCall(.patch, Self.path(id), body: SharingWire.body(fields))
        return try SharingWire.info(try await client.send(call))
    }

    /// Makes `newOwner` the owner (owner only). The previous owner stays a read-write
    /// member; the new owner's own grant goes. Returns the permissions after the change.
    @discardableResult
    public func transferOwnership(_ id: DocumentID, to newOwner: String) async throws(AccordError)
        -> DocumentPermissions
    {
        let call = ServerCall(.put, Self.path(id, "owner"), body: SharingWire.body(["user": newOwner]))
        return try SharingWire.permissions(try await client.send(call))
    }

    /// Deletes the document on the server (owner only): its content, grants and
    /// metadata go, and connections that have it open are closed with
    /// `DOCUMENT_DELETED`. Then drops this device's copy, if it has one.
    public func delete(_ id: DocumentID) async throws(AccordError) {
        _ = try await client.send(ServerCall(.delete, Self.path(id)))
        await client.close(id)
        if (try? client.store.contains(id)) == true { try client.store.delete(id) }
    }

    private static func path(_ id: DocumentID, _ sub: String? = nil) -> [String] {
        ["v1", "documents", id.rawValue] + (sub.map { [$0] } ?? [])
    }
}
