public import AccordCRDT
public import AccordStore
public import AccordSync
import Foundation

/// One record to write: the values to set, the fields to remove, and for a new record
/// without an id, whether one is made (`autoAssign`).
public struct RecordWrite: Sendable, Hashable {
    /// The record's id; nil for a new record whose id the model auto-assigns.
    public var id: String?
    public var values: [String: RecordValue]
    public var removing: Set<String>

    public init(id: String? = nil, values: [String: RecordValue], removing: Set<String> = []) {
        self.id = id
        self.values = values
        self.removing = removing
    }
}

extension ClientRecords {
    /// Writes one record of `model` into `document` (which must be open) and returns it
    /// as saved. A record the document does not hold yet is inserted with the model's
    /// defaults for the fields not given and a ULID for an auto-assigned id; an
    /// existing one gets only the given fields. Unique fields and constraints are
    /// checked against every record the index holds.
    /// - Throws: `DOCUMENT_NOT_OPEN`, `MODEL_NOT_REGISTERED`, `INVALID_ARGUMENT` naming
    ///   the field, `UNIQUE_VIOLATION` naming the constraint and the existing id.
    @discardableResult
    public func save(
        _ model: String, _ write: RecordWrite, in document: DocumentID, client: AccordClient
    ) async throws(AccordError) -> IndexedRecord {
        try await saveBatch(model, [write], in: document, client: client)[0]
    }

    /// Writes many records into one document in one transaction (one update, one
    /// projection). Every record is checked before anything is written: a refused
    /// batch writes nothing.
    @discardableResult
    public func saveBatch(
        _ model: String, _ writes: [RecordWrite], in document: DocumentID, client: AccordClient
    ) async throws(AccordError) -> [IndexedRecord] {
        guard let schema = models[model] else { throw Self.notRegistered(model) }
        let index = index
        do {
            return try await client.withDocument(document) { doc in
                // The client reads the clock and the system's randomness for ULIDs here,
                // at the edge; the shared writer takes them as arguments.
                var random = SystemRandomNumberGenerator()
                let milliseconds = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
                // The projector indexes the records as saved instead of reading them
                // back out of the document after the transaction (isolated to the client,
                // as this closure is). Forgotten however the write ends.
                let projector = projector(of: document)
                defer { projector?.forgetSaved() }
                return try RecordBatchWrite(schema: schema, index: index, document: document)
                    .write(writes, to: doc, milliseconds: milliseconds, random: &random) { saved in
                        projector?.expectSaved(saved, of: schema)
                    }
                    .map { IndexedRecord(document: document, record: $0) }
            }
        } catch let error as AccordError {
            throw error
        } catch {
            throw AccordError(.invalidArgument, "saving records failed: \(error)")
        }
    }

    /// Removes record `id` of `model` from `document`; nothing happens when there is none.
    public func delete(_ model: String, id: String, in document: DocumentID, client: AccordClient) async throws(AccordError) {
        guard let schema = models[model] else { throw Self.notRegistered(model) }
        do {
            try await client.withDocument(document) { doc in try RecordLayout.delete(id, model: schema, in: doc) }
        } catch let error as AccordError {
            throw error
        } catch {
            throw AccordError(.invalidArgument, "deleting record \(id) failed: \(error)")
        }
    }

    static func notRegistered(_ model: String) -> AccordError {
        AccordError(.modelNotRegistered, "model \"\(model)\" is not registered with this client", details: ["model": model])
    }
}
