public import AccordSync

/// The signed-in user's side of the directory: `client.me.ownedDocuments(...)`.
public struct Me: Sendable {
    public let client: AccordClient

    /// One page of the documents the user owns, oldest first, from the server
    /// (`GET /v1/me/documents`). Pass the page's ``DocumentPage/nextCursor`` back for the
    /// next one; paging lists every document exactly once while documents are added.
    /// `limit` is 1–200.
    ///
    /// - Throws: `NETWORK_ERROR` / `NETWORK_TIMEOUT` when the server cannot be reached,
    ///   `INVALID_ARGUMENT` for a bad limit or a cursor the server did not give out.
    public func ownedDocuments(tag: String? = nil, limit: Int = 50, cursor: String? = nil) async throws(AccordError)
        -> DocumentPage
    {
        var query: [(name: String, value: String)] = [("limit", String(limit))]
        if let tag { query.append(("tag", tag)) }
        if let cursor { query.append(("cursor", cursor)) }
        return try SharingWire.page(try await client.send(ServerCall(.get, ["v1", "me", "documents"], query: query)))
    }
}

extension Me {
    /// One page of the documents shared with the user by a direct grant (not those
    /// reached only through link access), in the order they were first granted, each
    /// with `permission`, `grantedBy` and `source`. Same paging as ``ownedDocuments(tag:limit:cursor:)``.
    public func sharedDocuments(tag: String? = nil, limit: Int = 50, cursor: String? = nil) async throws(AccordError)
        -> DocumentPage
    {
        var query: [(name: String, value: String)] = [("limit", String(limit))]
        if let tag { query.append(("tag", tag)) }
        if let cursor { query.append(("cursor", cursor)) }
        return try SharingWire.page(try await client.send(ServerCall(.get, ["v1", "me", "shared"], query: query)))
    }
}

/// A page of a listing.
public struct DocumentPage: Sendable, Hashable {
    public var documents: [DocumentInfo]
    /// Opaque; nil on the last page.
    public var nextCursor: String?
}

extension AccordClient {
    /// The signed-in user's listings.
    public nonisolated var me: Me { Me(client: self) }
}
