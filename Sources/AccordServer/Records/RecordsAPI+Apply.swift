import AccordCRDT
import AccordStore
import AccordRecords

extension RecordsAPI {
    /// Applies `operations` to `document` as one transaction: every operation is
    /// checked first (existence, `If-Match`, values, defaults, uniqueness), then all are
    /// written in one `Doc` transaction, stored durably and sent to the room's clients.
    /// Any refusal writes nothing.
    /// - Throws: `RECORD_NOT_FOUND` (patch or delete of a missing record),
    ///   `CONDITION_NOT_MET` (a create over an existing id, a failed `If-Match`),
    ///   `UNIQUE_VIOLATION`, `INVALID_ARGUMENT` (a new record without an id when the model
    ///   does not assign one), `DOCUMENT_TOO_LARGE`, `DOCUMENT_UNAVAILABLE`. Errors of a
    ///   bulk body carry `details["operation"]`, the index of the refused entry.
    /// - Parameter readBack: whether to read each record back as saved (single calls
    ///   answer with it; a bulk body and an ingest do not need it).
    func apply(
        _ operations: [RecordOperation], to document: DocumentID, models: [ModelSchema], readBack: Bool = true
    ) throws(AccordError) -> [AppliedRecordOperation] {
        let milliseconds = now()
        return try hub.withRoom(document) { room throws(AccordError) -> [AppliedRecordOperation] in
            let doc = room.doc
            let index = try indexes.index(for: document, doc: doc, models: models)
            try Self.checkPreconditions(operations, in: doc, document: document)
            let prepared = try Self.prepare(operations, index: index, document: document, doc: doc, milliseconds: milliseconds)
            let edit = try room.serverEdit { doc throws(AccordError) in
                for (position, operation) in operations.enumerated() {
                    if case .delete(let model, let id, _, _) = operation {
                        try RecordLayout.delete(id, model: model, in: doc)
                    } else if let write = prepared[position] {
                        try write.write(in: doc)
                    }
                }
            }
            if let edit { try hub.commit(edit, in: room) }
            return try operations.enumerated().map { position, operation throws(AccordError) in
                let model = operation.model
                let id: String
                switch operation {
                case .delete(_, let deleted, _, _): id = deleted
                default: id = prepared[position]?.id ?? ""
                }
                let record = readBack ? try Self.current(id, of: model, in: doc, document: document) : nil
                return AppliedRecordOperation(operation: operation.name, model: model.name, id: id, record: record)
            }
        }
    }

    /// The record as JSON as `doc` holds it now; nil when there is none.
    static func current(_ id: String, of model: ModelSchema, in doc: Doc, document: DocumentID) throws(AccordError) -> AnyValue? {
        guard let record = try RecordLayout.record(id, of: model, in: doc) else { return nil }
        return IndexedRecord(document: document, record: record).json(model: model)
    }

    /// Existence and `If-Match`, in order, as the records will be when each operation
    /// runs (a record created earlier in a bulk body exists for a later patch).
    private static func checkPreconditions(
        _ operations: [RecordOperation], in doc: Doc, document: DocumentID
    ) throws(AccordError) {
        var exists: [String: [String: Bool]] = [:]
        func present(_ model: ModelSchema, _ id: String) throws(AccordError) -> Bool {
            if let known = exists[model.name]?[id] { return known }
            return try RecordLayout.record(id, of: model, in: doc) != nil
        }
        for (position, operation) in operations.enumerated() {
            do throws(AccordError) {
                switch operation {
                case .create(let model, let write):
                    guard let id = write.id else { continue }
                    if try present(model, id) {
                        throw AccordError(
                            .conditionNotMet, "Model \"\(model.name)\" already has a record \"\(id)\"; patch it instead",
                            details: ["model": model.name, "id": id])
                    }
                    exists[model.name, default: [:]][id] = true
                case .patch(let model, let write, let ifMatch):
                    let id = write.id ?? ""
                    try requireExisting(model, id, present: try present(model, id))
                    if exists[model.name]?[id] == nil {
                        try RecordETag.require(ifMatch, current: try current(id, of: model, in: doc, document: document),
                                               model: model.name, id: id)
                    }
                case .upsert(let model, let write):
                    exists[model.name, default: [:]][write.id ?? ""] = true
                case .delete(let model, let id, let ifMatch, let mustExist):
                    let isPresent = try present(model, id)
                    if !mustExist && !isPresent { continue }
                    try requireExisting(model, id, present: isPresent)
                    if exists[model.name]?[id] == nil {
                        try RecordETag.require(ifMatch, current: try current(id, of: model, in: doc, document: document),
                                               model: model.name, id: id)
                    }
                    exists[model.name, default: [:]][id] = false
                }
            } catch {
                throw Self.atOperation(error, position, of: operations.count)
            }
        }
    }

    private static func requireExisting(_ model: ModelSchema, _ id: String, present: Bool) throws(AccordError) {
        guard present else {
            throw AccordError(.recordNotFound, "Model \"\(model.name)\" has no record \"\(id)\"", details: ["model": model.name, "id": id])
        }
    }

    /// Every create and patch checked and resolved by the records layer's own batch
    /// write (ids, defaults, values, uniqueness), one batch per model, indexed by the
    /// operation's position (nil for deletes).
    private static func prepare(
        _ operations: [RecordOperation], index: RecordIndex, document: DocumentID, doc: Doc, milliseconds: UInt64
    ) throws(AccordError) -> [PreparedRecordWrite?] {
        var byModel: [String: (model: ModelSchema, positions: [Int], writes: [RecordWrite])] = [:]
        for (position, operation) in operations.enumerated() {
            switch operation {
            case .create(let model, let write), .patch(let model, let write, _), .upsert(let model, let write):
                byModel[model.name, default: (model, [], [])].positions.append(position)
                byModel[model.name]?.writes.append(write)
            case .delete:
                continue
            }
        }
        var prepared: [PreparedRecordWrite?] = Array(repeating: nil, count: operations.count)
        var random = SystemRandomNumberGenerator()
        for name in byModel.keys.sorted() {
            guard let group = byModel[name] else { continue }
            let batch = RecordBatchWrite(schema: group.model, index: index, document: document)
            do {
                let writes = try batch.prepare(group.writes, in: doc, milliseconds: milliseconds, random: &random)
                for (position, write) in zip(group.positions, writes) { prepared[position] = write }
            } catch {
                let position = error.details["batchIndex"].flatMap(Int.init).map { group.positions[$0] }
                var details = error.details
                details["batchIndex"] = nil
                let refined = AccordError(error.code, error.message, details: details)
                throw position.map { atOperation(refined, $0, of: operations.count) } ?? refined
            }
        }
        return prepared
    }

    /// `error` naming the bulk entry it is about (single calls have one entry: no name).
    static func atOperation(_ error: AccordError, _ position: Int, of count: Int) -> AccordError {
        guard count > 1 else { return error }
        var details = error.details
        details["operation"] = String(position)
        return AccordError(error.code, "operations[\(position)]: \(error.message)", details: details)
    }
}
