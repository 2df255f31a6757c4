import Dispatch
import AccordCRDT
import AccordNet
import AccordStore
import AccordRecords

extension RecordsRoute {
    var isIngestChunk: Bool {
        if case .ingestChunk = self { return true }
        return false
    }
}

extension RecordsAPI {
    /// `POST …/records/$ingests` (read-write): a new session, 201 with its state.
    func createIngest(document: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        try requireRole(.readWrite, of: user, on: document)
        return Self.result(try ingests.create(for: document).json, status: 201)
    }

    /// `GET …/$ingests/{session}` (any role) reads its state; `DELETE` (read-write)
    /// aborts a session still uploading (it becomes `failed`, nothing is applied).
    func ingest(_ request: HTTPRequest, session: String, document: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        guard request.method == .delete else {
            try requireRole(.reader, of: user, on: document)
            return Self.result(try ingests.session(session, of: document).json)
        }
        try requireRole(.readWrite, of: user, on: document)
        let aborted = try ingests.update(session, of: document) { state throws(AccordError) in
            guard state.state == .uploading else { throw Self.notUploading(state) }
            state.state = .failed
            state.error = AccordError(.conditionNotMet, "the ingest was aborted before it was applied")
        }
        return Self.result(aborted.json)
    }

    /// `POST …/$ingests/{session}/chunks?model=M` (read-write): appends the body, ndjson
    /// lines of model `M`, to the session's spool file. Lines are checked when the
    /// session is committed (the CLI checks them before uploading).
    func ingestChunk(_ request: HTTPRequest, session: String, document: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        guard let model = request.queryValue("model"), !model.isEmpty else {
            throw AccordError(.invalidArgument, "name the chunk's model: ?model=<name>", details: ["field": "model"])
        }
        try requireRole(.readWrite, of: user, on: document)
        _ = try self.model(model, in: document)
        let limit = ingests.maxSessionBytes
        let total = ingests.maxTotalBytes
        guard ingests.heldBytes() + request.body.count <= total else {
            throw AccordError(.quotaExceeded, "ingest sessions hold \(total) bytes together; commit or abort one first",
                              details: ["limit": String(total)])
        }
        let updated = try ingests.append(request.body, model: model, to: session, of: document) { state throws(AccordError) in
            guard state.state == .uploading else { throw Self.notUploading(state) }
            guard state.bytes + request.body.count <= limit else {
                throw AccordError(.quotaExceeded, "an ingest session holds at most \(limit) bytes",
                                  details: ["limit": String(limit), "session": state.id])
            }
        }
        return Self.result(updated.json)
    }

    /// `POST …/$ingests/{session}/commit` (read-write): 202, then the session is
    /// validated and applied in the background as one transaction (poll its state).
    func commitIngest(session: String, document: DocumentID, user: String) throws(AccordError) -> HTTPResponse {
        try requireRole(.readWrite, of: user, on: document)
        let committed = try ingests.update(session, of: document) { state throws(AccordError) in
            guard state.state == .uploading else { throw Self.notUploading(state) }
            state.state = .validating
        }
        DispatchQueue.global().async { runIngest(session, document: document) }
        return Self.result(committed.json, status: 202)
    }

    /// Validates every line (the first fault names the file and line), then applies all
    /// of them as one transaction; the session ends `complete` or `failed`.
    ///
    /// When every line creates a record the document does not hold and no room holds the
    /// document, the lines are checked and written as one update in one pass, without
    /// loading it (``applyNewRecords(_:models:document:session:)``). Otherwise, when no
    /// model of the document has a unique field or constraint, the lines are
    /// read a second time straight into the transaction, one record at a time, instead
    /// of being held as a million operations (the check before has already met every
    /// fault a line can have, so the transaction never stops halfway). Uniqueness needs
    /// the whole batch at hand (two lines may claim one key), so then the operations are
    /// collected and applied through ``apply(_:to:models:readBack:)``.
    private func runIngest(_ session: String, document: DocumentID) {
        do throws(AccordError) {
            let chunks = try ingests.session(session, of: document).chunks
            let spool = SpooledChunks(chunks: chunks, session: session, sessions: ingests)
            let models = try schemas.models(document) ?? []
            let streaming = models.allSatisfy { model in model.uniqueConstraints.isEmpty && !model.fields.contains(where: \.unique) }
            if streaming, try applyNewRecords(spool, models: models, document: document, session: session) {
                try ingests.update(session, of: document) { state throws(AccordError) in state.state = .complete }
                return
            }
            var operations: [RecordOperation] = []
            var records = 0
            try Self.forEachLine(spool, models: models, document: document) { operation in
                records += 1
                if !streaming { operations.append(operation) }
            }
            try ingests.update(session, of: document) { state throws(AccordError) in
                state.state = .applying
                state.records = records
            }
            if streaming {
                try applyStreaming(spool, models: models, document: document)
            } else {
                _ = try apply(operations, to: document, models: models, readBack: false)
            }
            try ingests.update(session, of: document) { state throws(AccordError) in state.state = .complete }
        } catch {
            _ = try? ingests.update(session, of: document) { state throws(AccordError) in
                state.state = .failed
                state.error = error
            }
        }
    }

    /// A committed session's chunks, read back from its spool file one at a time.
    struct SpooledChunks {
        let chunks: [IngestSessions.Chunk]
        let session: String
        let sessions: IngestSessions

        func bytes(of chunk: IngestSessions.Chunk) throws(AccordError) -> [UInt8] {
            try sessions.read(chunk, of: session)
        }
    }

    /// Every line's operation in order; a fault names the file and the line. One chunk
    /// is in memory at a time.
    static func forEachLine(
        _ spool: SpooledChunks, models: [ModelSchema], document: DocumentID,
        _ body: (RecordOperation) throws(AccordError) -> Void
    ) throws(AccordError) {
        var lineNumbers: [String: Int] = [:]
        for chunk in spool.chunks {
            guard let model = models.first(where: { $0.name == chunk.model }) else {
                throw AccordError(.modelNotRegistered, "document \(document) has no model \"\(chunk.model)\"",
                                  details: ["model": chunk.model])
            }
            let bytes = try spool.bytes(of: chunk)
            var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            if lines.last?.isEmpty == true { lines.removeLast() }  // the chunk's final newline
            for line in lines {
                lineNumbers[chunk.model, default: 0] += 1
                let number = lineNumbers[chunk.model] ?? 0
                let operation: RecordOperation?
                do throws(AccordError) {
                    operation = try IngestLine.operation(Substring(decoding: line, as: UTF8.self), model: model)
                } catch {
                    var details = error.details
                    details["file"] = "\(chunk.model).ndjson"
                    details["line"] = String(number)
                    throw AccordError(error.code, "\(chunk.model).ndjson line \(number): \(error.message)", details: details)
                }
                if let operation { try body(operation) }
            }
        }
    }

    /// The lines, read again, written inside one transaction of the room's document
    /// (stored durably, then sent to its clients, as every records write). Upserts are
    /// prepared in batches per model (the records layer's checks, defaults and ids),
    /// each batch written before a delete of that model or a second line for an id it
    /// holds, so lines apply in their order.
    private func applyStreaming(_ spool: SpooledChunks, models: [ModelSchema], document: DocumentID) throws(AccordError) {
        let milliseconds = now()
        try hub.withRoom(document) { room throws(AccordError) in
            let index = try indexes.index(for: document, doc: room.doc, models: models)
            let edit = try room.serverEdit { doc throws(AccordError) in
                var pending = PendingUpserts(index: index, document: document, milliseconds: milliseconds)
                try Self.forEachLine(spool, models: models, document: document) { operation throws(AccordError) in
                    switch operation {
                    case .delete(let model, let id, _, _):
                        try pending.write(model.name, in: doc)
                        try RecordLayout.delete(id, model: model, in: doc)
                    case .upsert(let model, let write), .create(let model, let write), .patch(let model, let write, _):
                        try pending.add(write, of: model, in: doc)
                    }
                }
                try pending.writeAll(in: doc)
            }
            if let edit { try hub.commit(edit, in: room) }
        }
    }

    /// Upserts waiting to be prepared and written, per model.
    private struct PendingUpserts {
        static let batchSize = 10_000
        let index: RecordIndex
        let document: DocumentID
        let milliseconds: UInt64
        var random = SystemRandomNumberGenerator()
        var batches: [String: (model: ModelSchema, writes: [RecordWrite], ids: Set<String>)] = [:]

        init(index: RecordIndex, document: DocumentID, milliseconds: UInt64) {
            self.index = index
            self.document = document
            self.milliseconds = milliseconds
        }

        mutating func add(_ write: RecordWrite, of model: ModelSchema, in doc: Doc) throws(AccordError) {
            let id = write.id ?? ""
            if batches[model.name]?.ids.contains(id) == true { try self.write(model.name, in: doc) }
            batches[model.name, default: (model, [], [])].writes.append(write)
            batches[model.name]?.ids.insert(id)
            if (batches[model.name]?.writes.count ?? 0) >= Self.batchSize { try self.write(model.name, in: doc) }
        }

        mutating func write(_ name: String, in doc: Doc) throws(AccordError) {
            guard let batch = batches.removeValue(forKey: name), !batch.writes.isEmpty else { return }
            let prepared = try RecordBatchWrite(schema: batch.model, index: index, document: document)
                .prepare(batch.writes, in: doc, milliseconds: milliseconds, random: &random)
            for record in prepared { try record.write(in: doc) }
        }

        mutating func writeAll(in doc: Doc) throws(AccordError) {
            for name in batches.keys.sorted() { try write(name, in: doc) }
        }
    }

    private static func notUploading(_ session: IngestSessions.Session) -> AccordError {
        AccordError(.conditionNotMet, "ingest session \(session.id) is \(session.state.rawValue), no longer uploading",
                    details: ["session": session.id, "state": session.state.rawValue])
    }
}
