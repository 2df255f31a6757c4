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
/// Taken when every line is an upsert of an id no other line names and the models have
/// no unique fields or constraints (the check of the lines tells), the document as
/// stored holds none of the ids, and no room holds the document (no connected client,
/// no recent REST work), on a server that is not one node of a cluster. Otherwise the
/// ingest goes through the room as before.
extension RecordsAPI {
    /// The ids of the lines, by model, while every line is an upsert of an id no earlier
    /// line of its model named; nil once one is not (then the path is not taken).
    struct NewRecordIDs {
        private(set) var ids: [String: Set<String>]? = [:]

        mutating func note(_ operation: RecordOperation) {
            guard ids != nil else { return }
            guard case .upsert(let model, let write) = operation, let id = write.id,
                  ids?[model.name, default: []].insert(id).inserted == true
            else {
                ids = nil
                return
            }
        }
    }

    /// Applies the lines as one update of new records when the document allows it (see
    /// the type's comment); false, having changed nothing, when it does not.
    func applyNewRecords(
        _ spool: SpooledChunks, ids: inout NewRecordIDs, models: [ModelSchema], document: DocumentID
    ) throws(AccordError) -> Bool {
        // A cluster's other nodes append to the document too: their room's way only.
        guard let lineIDs = ids.ids, !hub.options.clustered else { return false }
        let milliseconds = now()
        let applied = try hub.withUnloadedDocument(document) { () throws(AccordError) -> Bool in
            let metadata = try hub.documents.metadata(document)
            // The document as stored: empty for a new one, small unless it holds many
            // records already (then loading it is what the room would have done).
            let existing = try hub.documents.load(document)
            for model in models {
                guard let named = lineIDs[model.name] else { continue }
                let root = try existing.getMap(model.name)
                if root.count > 0, named.contains(where: { root.contains($0) }) { return false }
            }
            ids = NewRecordIDs()  // not needed any more: a million ids are tens of megabytes
            try? FileManager.default.createDirectory(
                atPath: ingests.spoolDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let file = ServerRecordIndexes.IndexFile(in: ingests.spoolDirectory)
            let index = try RecordIndex(path: file.path)
            try index.register(models)
            try index.projectAll(document, doc: existing)
            var update = NewRecordsUpdate(client: existing.clientID, startClock: existing.stateVector[existing.clientID])
            var pending = PendingRows(index: index, document: document)
            var random = SystemRandomNumberGenerator()
            try Self.forEachLine(spool, models: models, document: document) { operation throws(AccordError) in
                guard case .upsert(let model, let write) = operation else {
                    throw AccordError(.internalError, "an ingest of new records met a \(operation.name)")
                }
                let record = try RecordBatchWrite(schema: model, index: index, document: document)
                    .add(new: write, to: &update, existing: existing, milliseconds: milliseconds, random: &random)
                try pending.add(record, of: model.name)
            }
            try pending.writeAll()
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

    /// Index rows waiting to be written, per model, in batches (one index transaction each).
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
            try index.insertNew(batch, model: model, document: document)
        }

        mutating func writeAll() throws(AccordError) {
            for model in rows.keys.sorted() { try write(model) }
        }
    }
}
