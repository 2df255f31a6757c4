import AccordCRDT
import AccordRecords
import AccordStore
import Foundation

/// A client store and its records index, opened by one `accord records` run: the
/// schema file's models registered with the index, and documents' projections brought
/// up to date before they are read. The index is the one `ClientRecords` keeps beside
/// the store (`<store>.records`), so an app and the CLI share it.
final class RecordsSession {
    let store: DocumentStore
    let index: RecordIndex
    let options: RecordsOptions

    /// Opens the store (created when `create` is set; else it must exist) and the index.
    /// - Throws: `IO_ERROR` for a missing store; storage errors; the schema's codes
    ///   when the index refuses the models.
    init(_ options: RecordsOptions, create: Bool) throws(AccordError) {
        if !create, !FileManager.default.fileExists(atPath: options.storePath) {
            throw AccordError(.ioError, "\(options.storePath): no such store", details: ["path": options.storePath])
        }
        self.options = options
        store = try DocumentStore(path: options.storePath)
        index = try RecordIndex(path: (store.storage.filePath ?? options.storePath) + ".records")
        try index.register(options.models)
    }

    /// Flushes and closes the store (waiting for compactions it started).
    func close() throws(AccordError) {
        try store.close()
    }

    /// The documents to read: `requested` (each must be in the store), or every
    /// document of the store whose content is on this device.
    /// - Throws: `DOCUMENT_NOT_FOUND` for a requested id the store does not have.
    func documents(_ requested: [DocumentID]?) throws(AccordError) -> [DocumentID] {
        guard let requested else { return try store.documents().filter(\.isResident).map(\.id) }
        for id in requested where try !store.contains(id) {
            throw AccordError(.documentNotFound, "no document \(id) in \(options.storePath)", details: ["document": id.rawValue])
        }
        return requested
    }

    /// Brings the index up to date for `documents`: each is loaded from the store and
    /// projected again unless the index already reflects exactly its state (the same
    /// check `ClientRecords` makes when a document opens).
    func refresh(_ documents: [DocumentID]) throws(AccordError) {
        for id in documents {
            let doc = try store.load(id)
            let sequence = try store.metadata(id).lastSequence
            if try index.needsProjection(id, stateVector: doc.encodeStateVector(), sequence: sequence) {
                try index.projectAll(id, doc: doc, sequence: sequence)
            }
        }
    }

    /// Runs `body` with the session and closes it afterwards, even when `body` throws
    /// (the error of `body` wins over one from closing).
    static func with<T>(
        _ options: RecordsOptions, create: Bool, _ body: (RecordsSession) throws(AccordError) -> T
    ) throws(AccordError) -> T {
        let session = try RecordsSession(options, create: create)
        let result: T
        do throws(AccordError) {
            result = try body(session)
        } catch {
            try? session.close()
            throw error
        }
        try session.close()
        return result
    }
}
