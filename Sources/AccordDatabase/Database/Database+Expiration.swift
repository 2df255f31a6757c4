public import AccordCRDT
public import Foundation

extension Collection {
    /// Sets when the document expires (nil: never). At that time it is purged from this
    /// device (see ``purge(id:)``: local, not replicated) by a background pass scheduled
    /// for the earliest expiration, or when the database next opens if it is closed then.
    /// `DOCUMENT_NOT_FOUND` when there is no such document.
    public func setDocumentExpiration(id: String, expiration: Date?) throws(AccordError) {
        try database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            guard case .saved? = try database.currentState(key, id, in: open) else {
                throw AccordError(
                    .documentNotFound, "no document \(id) in the collection \(name)",
                    details: ["document": id, "collection": name])
            }
            // Only the table holds expirations: synced, as a save is.
            try open.table.durableTransaction { () throws(AccordError) in
                try open.table.setExpiration(collection: key.tableName, id: id, expiration?.timeIntervalSince1970)
            }
            database.scheduleExpiryPass()
        }
    }

    /// When the document expires, or nil when it does not (or does not exist).
    public func getDocumentExpiration(id: String) throws(AccordError) -> Date? {
        try database.withOpen { open throws(AccordError) in
            _ = try database.content(key)
            guard let row = try open.table.row(collection: key.tableName, id: id), row.isVisible else { return nil }
            return row.expiration.map(Date.init(timeIntervalSince1970:))
        }
    }
}

extension Database {
    /// Purges every document whose expiration has passed, in one batch, and schedules
    /// the next pass. The background pass calls this; an app may call it to purge now.
    /// - Returns: how many documents were purged.
    @discardableResult
    public func purgeExpiredDocuments() throws(AccordError) -> Int {
        try withOpen { open throws(AccordError) in
            let due = try open.table.expired(atOrBefore: now().timeIntervalSince1970)
            defer { scheduleExpiryPass() }
            guard !due.isEmpty else { return 0 }
            let pending = batch ?? PendingBatch(sequenceBefore: open.sequence)
            for (tableName, id) in due {
                guard let key = CollectionKey(tableName: tableName) else { continue }
                pending.stage(PendingBatch.Write(key: key, id: id, kind: .purge, sequence: open.sequence, document: nil))
            }
            if batch == nil { try commitBatch(pending, in: open) }
            return due.count
        }
    }

    /// Schedules one pass at the earliest expiration (replacing the one scheduled), so
    /// nothing polls: with no expiration set, no pass is scheduled. Caller holds the lock.
    func scheduleExpiryPass() {
        expiryPass?.cancel()
        expiryPass = nil
        guard let open = state, let next = try? open.table.nextExpiration() else { return }
        // At most a day ahead: the wall clock may jump, so a far expiry is looked at again.
        let delay = min(max(0, next - now().timeIntervalSince1970), 86_400)
        let pass = DispatchWorkItem { [weak self] in _ = try? self?.purgeExpiredDocuments() }
        expiryPass = pass
        expiryQueue.asyncAfter(deadline: .now() + delay, execute: pass)
    }
}
