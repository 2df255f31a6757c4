import Foundation
import AccordCRDT
import AccordStore
import AccordRecords

/// The ingest of records new to a document whose room is not loaded: one Yjs update
/// written straight from the lines (``NewRecordsUpdate``), and the query index built
/// from the same records into a file, instead of the lines applied to the room's `Doc`.
///
/// Why: a million records cost the `Doc` about 700 MB and its in-memory index about
/// 360 MB, held at once and then copied again by the store's compaction, while the
/// update they make is about 70 MB. The document is not loaded here, and after the
/// ingest the records routes answer from the index while the document stays unloaded
/// (``ServerRecordIndexes/detachedIndex(for:models:stored:)``). The result is the
/// same document: the records a transaction through ``RecordLayout`` would write, with
/// the same defaults and checks, in one update appended and flushed as one.
///
/// Taken when no room holds the document (no connected client, no recent REST work),
/// the server is not one node of a cluster, the models have no unique fields or
/// constraints, and every line turns out to be an upsert of an id the document does not
/// hold and no earlier line named. The lines are checked, and the update and index
/// written, in one pass over them (each line is parsed once, not once to check and once
/// to apply); the first line that is not such an upsert abandons the pass, before
/// anything is stored, and the ingest goes through the room as before.
extension RecordsAPI {
    /// Applies the lines as one update of new records when the document allows it (see
    /// the type's comment): true once stored, with `session` moved to `applying` on the
    /// way; false, having stored nothing, when the ingest is to go through the room.
    /// - Throws: a bad line, named by file and line, as the room's way would (nothing
    ///   stored); `DOCUMENT_TOO_LARGE`; what the store throws.
    func applyNewRecords(
        _ spool: SpooledChunks, models: [ModelSchema], document: DocumentID, session: String
    ) throws(AccordError) -> Bool {
        // A cluster's other nodes append to the document too: their room's way only.
        guard !hub.options.clustered else { return false }
        let milliseconds = now()
        let applied = try hub.withUnloadedDocument(document) { () throws(AccordError) -> Bool in
            let metadata = try hub.documents.metadata(document)
            // The document as stored: empty for a new one, small unless it holds many
            // records already (then loading it is what the room would have done).
            let existing = try hub.documents.load(document)
            // A record deleted since is held too: its entry must be a new value's origin.
            var held: [String: YMap] = [:]
            for model in models { held[model.name] = try existing.getMap(model.name) }
            try? FileManager.default.createDirectory(
                atPath: ingests.spoolDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let file = ServerRecordIndexes.IndexFile(in: ingests.spoolDirectory)
            let index = try RecordIndex(path: file.path)
            try index.register(models)
            try index.projectAll(document, doc: existing)
            var update = NewRecordsUpdate(client: existing.clientID, startClock: existing.stateVector[existing.clientID])
            var pending = PendingRows(index: index, document: document)
            var random = SystemRandomNumberGenerator()
            var records = 0
            do throws(AccordError) {
                try Self.forEachLine(spool, models: models, document: document) { operation throws(AccordError) in
                    guard case .upsert(let model, let write) = operation, let id = write.id,
                          held[model.name]?.hasEntry(id) != true
                    else { throw Self.notNew }
                    let record = try RecordBatchWrite(schema: model, index: index, document: document)
                        .add(new: write, to: &update, existing: existing, milliseconds: milliseconds, random: &random)
                    try pending.add(record, of: model.name)
                    records += 1
                }
                try pending.writeAll()
            } catch {
                if error.details[Self.notNewMarker] != nil { return false }
                throw error
            }
            try ingests.update(session, of: document) { state throws(AccordError) in
                state.state = .applying
                state.records = records
            }
            guard !update.isEmpty else { return true }
            let limit = hub.options.maxDocumentBytes
            guard metadata.size + update.byteCount <= limit else {
                throw AccordError(
                    .documentTooLarge, "document \(document) would exceed \(limit) bytes",
                    details: ["document": document.rawValue, "limit": String(limit)])
            }
            let bytes = update.encoded()
            update = NewRecordsUpdate(client: existing.clientID, startClock: 0)  // its buffer goes before the store copies the update
            _ = try hub.commitUnloaded(bytes, to: document)
            let stored = ServerRecordIndexes.StoredVersion(try hub.documents.metadata(document))
            indexes.adopt(index, file: file, for: document, models: models, stored: stored)
            return true
        }
        return applied ?? false
    }

    /// Thrown inside the pass (never out of it) when a line is not an upsert of a new id.
    private static let notNewMarker = "ingest.notNew"
    private static var notNew: AccordError {
        AccordError(.conditionNotMet, "a line does not create a new record", details: [notNewMarker: "1"])
    }

    /// Index rows waiting to be written, per model, in batches (one index transaction
    /// each). A row the index holds already (an id named twice) abandons the pass.
    private struct PendingRows {
        static let batchSize = 10_000
        let index: RecordIndex
        let document: DocumentID
        var rows: [String: [RecordData]] = [:]

        init(index: RecordIndex, document: DocumentID) {
            self.index = index
            self.document = document
        }

        mutating func add(_ record: RecordData, of model: String) throws(AccordError) {
            rows[model, default: []].append(record)
            if (rows[model]?.count ?? 0) >= Self.batchSize { try write(model) }
        }

        mutating func write(_ model: String) throws(AccordError) {
            guard let batch = rows.removeValue(forKey: model) else { return }
            guard try index.insertNew(batch, model: model, document: document) else { throw RecordsAPI.notNew }
        }

        mutating func writeAll() throws(AccordError) {
            for model in rows.keys.sorted() { try write(model) }
        }
    }
}
