public import AccordCRDT
import AccordStore

extension DocumentDirectory {
    /// Deletes a document with its log, its access row and its details.
    ///
    /// The document goes first: a crash after it leaves rows without a document, which
    /// mean nothing and are overwritten if the id is created again; the other order
    /// could leave a document nobody may open, taking space forever.
    ///
    /// - Throws: `DOCUMENT_NOT_FOUND`; storage errors.
    public func delete(_ id: DocumentID) throws(AccordError) {
        try documents.delete(id)
        try access.removeAccess(id)
        try setDetails(DocumentDetails(), for: id)
    }
}
