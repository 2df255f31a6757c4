public import AccordCRDT
import AccordStore

/// The owned-documents and shared-with-me listings. Owned: per user, a log (category `server.owned`, key = user
/// id) of the documents they came to own, in that order (creation, or receiving
/// ownership). An entry counts while its document exists, the user still owns it, and
/// the access row's `ownerListing` is the entry's sequence (so a document owned,
/// given away and owned again is listed once, at its latest entry). Paging by sequence
/// lists every row exactly once while rows are added: new entries only ever go after.
extension DocumentDirectory {
    public static let ownedCategory = StorageCategory("server.owned")
    /// The same kind of log for documents shared with a user by a direct grant: an entry
    /// counts while the user has a grant and `memberListings[user]` is its sequence.
    public static let sharedCategory = StorageCategory("server.shared")

    /// One page of `user`'s owned documents after `cursor` (0 for the first page).
    /// Stops after `limit` documents, or after scanning `scanBudget` entries (a rare tag
    /// can leave a page short; the cursor still moves on). `next` is nil at the end.
    public func ownedDocuments(
        of user: String, tag: String? = nil, after cursor: UInt64, limit: Int, scanBudget: Int = 2000
    ) throws(AccordError) -> (documents: [DocumentMetadata], next: UInt64?) {
        let page = try listing(Self.ownedCategory, of: user, tag: tag, after: cursor, limit: limit, scanBudget: scanBudget) {
            row, sequence in row.owner == user && row.ownerListing == sequence
        }
        return (page.entries.map(\.metadata), page.next)
    }

    /// One page of the documents shared with `user` by a direct grant (not through link
    /// access), with the row of each.
    public func sharedDocuments(
        of user: String, tag: String? = nil, after cursor: UInt64, limit: Int, scanBudget: Int = 2000
    ) throws(AccordError) -> (entries: [(metadata: DocumentMetadata, access: DocumentAccess)], next: UInt64?) {
        try listing(Self.sharedCategory, of: user, tag: tag, after: cursor, limit: limit, scanBudget: scanBudget) {
            row, sequence in row.members[user] != nil && row.owner != user && row.memberListings?[user] == sequence
        }
    }

    private func listing(
        _ category: StorageCategory, of user: String, tag: String?, after cursor: UInt64, limit: Int, scanBudget: Int,
        counts: (DocumentAccess, UInt64) -> Bool
    ) throws(AccordError) -> (entries: [(metadata: DocumentMetadata, access: DocumentAccess)], next: UInt64?) {
        var found: [(metadata: DocumentMetadata, access: DocumentAccess)] = []
        var position = cursor
        var scanned = 0
        while found.count < limit, scanned < scanBudget {
            let batch = try access.storage.withAdapter {
                try $0.readLog(category, key: user, after: position, limit: max(limit * 2, 64))
            }
            guard !batch.isEmpty else { return (found, nil) }
            for entry in batch {
                position = entry.sequence
                scanned += 1
                if let listed = try listed(entry, counts: counts), tag.map(listed.metadata.tags.contains) ?? true {
                    found.append(listed)
                    if found.count == limit { break }
                }
            }
        }
        let more = try access.storage.withAdapter {
            try !$0.readLog(category, key: user, after: position, limit: 1).isEmpty
        }
        return (found, more ? position : nil)
    }

    /// The document an entry names with its row, if the entry still counts.
    private func listed(
        _ entry: StorageLogEntry, counts: (DocumentAccess, UInt64) -> Bool
    ) throws(AccordError) -> (metadata: DocumentMetadata, access: DocumentAccess)? {
        guard let id = DocumentID(rawValue: String(decoding: entry.value, as: UTF8.self)),
            let row = try access.access(id), counts(row, entry.sequence), try documents.contains(id)
        else { return nil }
        return (try documents.metadata(id), row)
    }

    /// Appends `id` to `owner`'s owned listing; returns the entry's sequence.
    func appendOwned(_ id: DocumentID, owner: String) throws(AccordError) -> UInt64 {
        try append(id, to: Self.ownedCategory, of: owner)
    }

    /// Appends `id` to `member`'s shared-with-me listing; returns the entry's sequence.
    func appendShared(_ id: DocumentID, member: String) throws(AccordError) -> UInt64 {
        try append(id, to: Self.sharedCategory, of: member)
    }

    /// An entry whose access row never names it (a crash, a refused change) is ignored
    /// when listing.
    ///
    /// In a cluster the storage numbers the listings (``LogNumberingAdapter``: PostgreSQL
    /// takes the next number under the log's head row lock), so two nodes appending to
    /// one user's listing at once never collide. A storage that does not number them
    /// (one node) gets the last number plus one; should another writer still take that
    /// number first, the storage refuses the second append (PostgreSQL: `AC001` when the
    /// other committed first, `23505` when both were in flight), which is then read and
    /// tried again with the next number.
    private func append(_ id: DocumentID, to category: StorageCategory, of user: String) throws(AccordError) -> UInt64 {
        access.listing.lock()
        defer { access.listing.unlock() }
        var attempt = 1
        while true {
            do {
                return try access.storage.withAdapter { adapter in
                    if let numbering = adapter as? any LogNumberingAdapter, numbering.numbersLogs(in: category) {
                        return try numbering.appendNext(category, key: user, value: Array(id.rawValue.utf8))
                    }
                    let sequence = (try adapter.lastSequence(category, key: user) ?? 0) + 1
                    try adapter.commit([.append(category, key: user, sequence: sequence, value: Array(id.rawValue.utf8))])
                    return sequence
                }
            } catch where attempt < 8 && ["AC001", "23505"].contains(error.details["sqlstate"] ?? "") {
                attempt += 1
            }
        }
    }
}
