public import AccordSync

/// The signed-in user's side of the directory: `client.me.ownedDocuments(...)`.
public struct Me: Sendable {
    public let client: AccordClient

    /// How long a `.network` listing waits for the server by default.
    public static let defaultListingTimeout: Duration = .seconds(10)

    /// One page of the documents the user owns, oldest first.
    ///
    /// - `.local` (the default) answers at once from the device: the metadata cache
    ///   (kept current by the server's events, listings and ``AccordClient/syncMetadata()``)
    ///   plus the documents created here that the server has not confirmed yet, so a
    ///   document just created appears before the server lists it. The first page also
    ///   starts a background refresh; what it changes arrives as
    ///   `DocumentMetadataChangedEvent`s, so list again on them.
    /// - `.network` asks the server (`GET /v1/me/documents`) and caches what it answers;
    ///   no answer within `timeout` is `NETWORK_TIMEOUT`, never stale rows; offline it is
    ///   `NETWORK_ERROR`.
    /// - `.localElseNetwork`: `.local` once the device has cached anything, else `.network`.
    ///
    /// Pass the page's ``DocumentPage/nextCursor`` back for the next one: a cursor
    /// continues the listing it came from (local or the server's), whatever
    /// `waitForLoad` says. Paging lists every document exactly once while documents are
    /// added. `limit` is 1–200.
    ///
    /// - Throws: `INVALID_ARGUMENT` for a bad limit or a cursor that was not given out;
    ///   on the network, `NETWORK_ERROR` / `NETWORK_TIMEOUT` and the server's refusals.
    public func ownedDocuments(
        tag: String? = nil, limit: Int = 50, cursor: String? = nil, waitForLoad: WaitForLoad = .local,
        timeout: Duration = Me.defaultListingTimeout
    ) async throws(AccordError) -> DocumentPage {
        if let cursor {
            if let offset = try LocalListingCursor.offset(cursor) {
                return try await localOwned(tag: tag, limit: limit, offset: offset)
            }
            return try await networkOwned(tag: tag, limit: limit, cursor: cursor, timeout: timeout)
        }
        let local: Bool
        switch waitForLoad {
        case .local: local = true
        case .network: local = false
        case .localElseNetwork: local = try await client.hasCachedDirectory
        }
        guard local else { return try await networkOwned(tag: tag, limit: limit, cursor: nil, timeout: timeout) }
        let page = try await localOwned(tag: tag, limit: limit, offset: 0)
        await client.refreshDirectoryInBackground()
        return page
    }

    private func localOwned(tag: String?, limit: Int, offset: Int) async throws(AccordError) -> DocumentPage {
        // The server's rule (it checks the network listing's limit itself).
        guard (1...200).contains(limit) else {
            throw AccordError(.invalidArgument, "limit is 1 to 200, not \(limit)", details: ["field": "limit"])
        }
        let all = try await client.localOwnedDocuments().filter { tag == nil || $0.tags.contains(tag!) }
        let end = min(all.count, offset + limit)
        let rows = offset < end ? Array(all[offset..<end]) : []
        return DocumentPage(documents: rows, nextCursor: end < all.count ? LocalListingCursor.make(end) : nil)
    }

    private func networkOwned(tag: String?, limit: Int, cursor: String?, timeout: Duration) async throws(AccordError)
        -> DocumentPage
    {
        var query: [(name: String, value: String)] = [("limit", String(limit))]
        if let tag { query.append(("tag", tag)) }
        if let cursor { query.append(("cursor", cursor)) }
        let body = try await client.send(ServerCall(.get, ["v1", "me", "documents"], query: query, timeout: timeout))
        let page = try SharingWire.page(body)
        await client.cacheListed(try DocumentPageJSON.split(body).documents)
        return page
    }
}

/// Cursors of the local listing: `local:<offset>`. The server's cursors never start
/// with `local:` (they are base64url), so a cursor says which listing it continues.
enum LocalListingCursor {
    static let prefix = "local:"

    static func make(_ offset: Int) -> String { prefix + String(offset) }

    /// The offset of a local cursor; nil for a server cursor; `INVALID_ARGUMENT` for a
    /// local cursor that was not made here.
    static func offset(_ cursor: String) throws(AccordError) -> Int? {
        guard cursor.hasPrefix(prefix) else { return nil }
        guard let offset = Int(cursor.dropFirst(prefix.count)), offset >= 0 else {
            throw AccordError(.invalidArgument, "not a cursor this listing gave out", details: ["field": "cursor"])
        }
        return offset
    }
}

extension Me {
    /// One page of the documents shared with the user by a direct grant (not those
    /// reached only through link access), in the order they were first granted, each
    /// with `permission`, `grantedBy` and `source`, from the server.
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
