import AccordCRDT
import AccordStore

extension AccordClient {
    /// Brings the metadata cache (``cachedDocuments()``) up to date with the server
    /// without opening any document: how a device that was offline learns what changed
    /// meanwhile. Pages through the owned and shared listings; a cached document they do
    /// not list (reached through link access, or gone) is asked for by id. Each entry
    /// that changed is a ``DocumentMetadataChangedEvent`` (`updated`); a document deleted
    /// or no longer accessible is `deleted`, and its local copy is dropped, as when the
    /// server's event arrives.
    ///
    /// - Throws: `NETWORK_ERROR` / `NETWORK_TIMEOUT` (nothing is changed for the pages
    ///   not read), the server's refusals.
    public func syncMetadata() async throws(AccordError) {
        try checkRunning()
        var listed: [DocumentID: [UInt8]] = [:]
        // Owned first: a document both owned and listed as shared keeps the owner's view.
        for path in [["v1", "me", "documents"], ["v1", "me", "shared"]] {
            var cursor: String?
            repeat {
                var query: [(name: String, value: String)] = [("limit", "200")]
                if let cursor { query.append(("cursor", cursor)) }
                let page = try DocumentPageJSON.split(try await send(ServerCall(.get, path, query: query)))
                for json in page.documents {
                    let info = try DocumentInfo(json: json)
                    if listed[info.id] == nil { listed[info.id] = json }
                }
                cursor = page.nextCursor
            } while cursor != nil
        }
        for cached in try directoryCache.all() where listed[cached.id] == nil {
            do {
                listed[cached.id] = try await send(ServerCall(.get, ["v1", "documents", cached.id.rawValue]))
            } catch where error.code == ErrorCode(rawValue: "DOCUMENT_NOT_FOUND") || error.code == ErrorCode(rawValue: "DOC_ACCESS_DENIED") {
                entryDeleted(cached.id)
            }
        }
        for id in listed.keys.sorted() {
            if let json = listed[id] { entryUpdated(id, json: json) }
        }
    }
}
