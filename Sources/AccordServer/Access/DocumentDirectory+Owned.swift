public import AccordCRDT
import AccordStore

/// The owned-documents listing: per user, a log (category `server.owned`, key = user
/// id) of the documents they came to own, in that order (creation, or receiving
/// ownership). An entry counts while its document exists, the user still owns it, and
/// the access row's `ownerListing` is the entry's sequence (so a document owned,
/// given away and owned again is listed once, at its latest entry). Paging by sequence
/// lists every row exactly once while rows are added: new entries only ever go after.
extension DocumentDirectory {
    static let ownedCategory = StorageCategory("server.owned")

    /// One page of `user`'s owned documents after `cursor` (0 for the first page).
    /// Stops after `limit` documents, or after scanning `scanBudget` entries (a rare tag
    /// can leave a page short; the cursor still moves on). `next` is nil at the end.
    public func ownedDocuments(
        of user: String, tag: String? = nil, after cursor: UInt64, limit: Int, scanBudget: Int = 2000
    ) throws(AccordError) -> (documents: [DocumentMetadata], next: UInt64?) {
        var found: [DocumentMetadata] = []
        var position = cursor
        var scanned = 0
        while found.count < limit, scanned < scanBudget {
            let batch = try access.storage.withAdapter {
                try $0.readLog(Self.ownedCategory, key: user, after: position, limit: max(limit * 2, 64))
            }
            guard !batch.isEmpty else { return (found, nil) }
            for entry in batch {
                position = entry.sequence
                scanned += 1
                if let metadata = try listed(entry, owner: user), tag.map(metadata.tags.contains) ?? true {
                    found.append(metadata)
                    if found.count == limit { break }
                }
            }
        }
        let more = try access.storage.withAdapter {
            try !$0.readLog(Self.ownedCategory, key: user, after: position, limit: 1).isEmpty
        }
        return (found, more ? position : nil)
    }

    /// The document an entry names, if the entry still counts.
    private func listed(_ entry: StorageLogEntry, owner: String) throws(AccordError) -> DocumentMetadata? {
        guard let id = DocumentID(rawValue: String(decoding: entry.value, as: UTF8.self)),
            let row = try access.access(id), row.owner == owner, row.ownerListing == entry.sequence,
            try documents.contains(id)
        else { return nil }
        return try documents.metadata(id)
    }

    /// Appends `id` to `owner`'s listing; returns the entry's sequence. An entry whose
    /// access row never names it (a crash, a refused change) is ignored when listing.
    func appendOwned(_ id: DocumentID, owner: String) throws(AccordError) -> UInt64 {
        access.listing.lock()
        defer { access.listing.unlock() }
        return try access.storage.withAdapter { adapter in
            let sequence = (try adapter.lastSequence(Self.ownedCategory, key: owner) ?? 0) + 1
            try adapter.commit([.append(Self.ownedCategory, key: owner, sequence: sequence, value: Array(id.rawValue.utf8))])
            return sequence
        }
    }
}
