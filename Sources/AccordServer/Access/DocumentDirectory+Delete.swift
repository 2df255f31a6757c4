public import AccordCRDT
import AccordStore
import Foundation

extension DocumentDirectory {
    /// Deletes a document with its log, its access row and its details, and remembers
    /// its id (``AccessStore/wasDeleted(_:)``) so that create-on-connect does not bring it
    /// back: a device that still has it open would re-create it, as its own, on reconnecting.
    ///
    /// The tombstone goes first (a crash after it leaves the document in place, and the
    /// delete can be retried), then the document: a crash after that leaves rows without a
    /// document, which mean nothing; the other order could leave a document nobody may
    /// open, taking space forever.
    ///
    /// Its blob references go last (a crash before leaves them to a document that no
    /// longer exists, which only delays their collection).
    ///
    /// - Throws: `DOCUMENT_NOT_FOUND`; storage errors.
    public func delete(_ id: DocumentID) throws(AccordError) {
        _ = try documents.metadata(id)
        let row = try access.access(id)
        try access.bury(id, at: Date().formatted(.iso8601))
        try documents.delete(id)
        try access.removeAccess(id)
        try setDetails(DocumentDetails(), for: id)
        try access.collections.removeEverywhere(id)
        try setAccessRequests([], for: id)
        for raw in (row?.groups ?? [:]).keys {
            if let group = GroupKey(rawValue: raw) { try access.groups.setGranted(id, to: group, false) }
        }
        for email in (row?.invitations ?? [:]).keys {
            guard let address = try? EmailAddress(validating: email) else { continue }
            try access.invitations.withLock { () throws(AccordError) in try unindexInvitation(address, from: id) }
        }
        try releaseBlobs(of: id)
    }
}

extension DocumentDirectory {
    /// Drops every blob reference of a deleted document, so its blobs are collected once
    /// no other document references them (after the grace period, counted from when
    /// each was stored). Unfinished uploads to it are discarded by the next collection.
    func releaseBlobs(of id: DocumentID) throws(AccordError) {
        let store = try BlobStore(storage: documents.storage)
        for blob in try store.blobs(referencedBy: id) {
            try store.removeReference(blob.hash, document: id)
        }
    }
}
