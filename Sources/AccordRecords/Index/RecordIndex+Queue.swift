public import AccordCRDT
public import AccordStore

extension RecordIndex {
    /// Queues the projection of the records named in `changes` (model → record ids):
    /// reads them out of `doc`, the current state of `document`, now (on the caller,
    /// which owns `doc`), and leaves the SQLite writes to a background thread or to the
    /// next use of the index, whichever comes first. `models` are the schemas to read
    /// them with; a model the index no longer has with that schema when the rows are
    /// written is skipped (its re-registration projects the document again).
    /// `created` names the records of `changes` (a subset) that the transaction
    /// created: their rows are inserted without first clearing string-set members they
    /// cannot have (checked when written: see ``insertMany(_:into:document:created:)``).
    /// `known`: records of one model as the transaction left them, written by a save
    /// that worked them out (checked with that schema); they are taken as they are
    /// instead of read out of `doc`, when the model is still read with that schema.
    public func enqueue(
        _ document: DocumentID, doc: Doc, changes: [String: Set<String>], created: [String: Set<String>] = [:],
        models: [String: ModelSchema], sequence: UInt64, known: (model: ModelSchema, records: [String: RecordData])? = nil
    ) {
        var grouped: [PendingProjection.ModelRows] = []
        var malformed = 0
        for (model, ids) in changes {
            guard let schema = models[model] else { continue }
            var rows: [PendingProjection.Row] = []
            rows.reserveCapacity(ids.count)
            let createdIDs = created[model] ?? []
            // The ids created are among those changed: when as many, all were (a batch of new records).
            let allCreated = createdIDs.count == ids.count
            let saved = known.flatMap { $0.model == schema ? $0.records : nil } ?? [:]
            // In id order, the order of the records table's keys: a batch of new records
            // with rising ids (ULIDs, or an app's own sequence) then appends to the end of
            // the table (SQLite places a key past the last one without descending the
            // tree) instead of landing in random order among its last pages. That saved
            // about a seventh of the writer's SQLite work on the insert benchmark; the
            // sort costs the saving side far less (``CodePoints/sorted(_:)``).
            for id in CodePoints.sorted(ids) {
                let record: RecordData?
                do {
                    record = try saved[id] ?? RecordLayout.record(id, of: schema, in: doc)
                } catch {
                    malformed += 1
                    record = nil
                }
                rows.append(PendingProjection.Row(id: id, record: record, created: allCreated || createdIDs.contains(id)))
            }
            grouped.append(PendingProjection.ModelRows(schema: schema, rows: rows))
        }
        let projection = PendingProjection(
            document: document, models: grouped, malformed: malformed, stateVector: doc.encodeStateVector(), sequence: sequence)
        queue.append(projection) { [weak self] in self?.locked {} }
    }

    /// The last queued projection of `document` that failed, after writing what is queued.
    public func failure(of document: DocumentID) -> AccordError? {
        locked { failures[document] }
    }

    /// Every document whose last queued projection failed, after writing what is queued.
    public var queuedFailures: [DocumentID: AccordError] {
        locked { failures }
    }

    /// Forgets `document`'s failure (it is about to be projected whole again).
    public func clearFailure(of document: DocumentID) {
        locked { failures[document] = nil }
    }

    /// Writes every queued projection, oldest first, all in one SQLite transaction
    /// (under the lock). One commit for all of them because when the writer falls behind
    /// a stream of saves it finds many waiting, and a commit per projection wrote the same
    /// hot index pages to the WAL again and again.
    ///
    /// No savepoint per projection: inside a savepoint SQLite first copies every page it
    /// changes into a sub-journal (a temporary file), which for a batch of new records
    /// was most of the writer's system calls. Failures are rare, so the common path pays
    /// nothing for them: when the shared transaction fails it is rolled back whole and
    /// each projection is written again in a transaction of its own (``writeAlone(_:)``),
    /// so the one that fails is recorded for its document and the others still go in.
    func writeQueued() {
        let projections = queue.takeAll()
        guard !projections.isEmpty else { return }
        var written = Counters()
        do throws(AccordError) {
            try transaction { () throws(AccordError) in
                for projection in projections { try write(projection, into: &written) }
            }
            tally.projectedRecords += written.projectedRecords
            tally.malformedRecords += written.malformedRecords
        } catch {
            // Rolled back whole: nothing of these projections is in yet. One alone has
            // nothing to separate from (and trying again would only repeat the failure).
            guard projections.count > 1 else {
                failures[projections[0].document] = error
                return
            }
            for projection in projections { writeAlone(projection) }
        }
    }

    /// Writes one projection in a transaction of its own; a failure is recorded for its
    /// document (whose position then stays behind, so its next open projects it again).
    private func writeAlone(_ projection: PendingProjection) {
        var written = Counters()
        do throws(AccordError) {
            try transaction { () throws(AccordError) in try write(projection, into: &written) }
            tally.projectedRecords += written.projectedRecords
            tally.malformedRecords += written.malformedRecords
        } catch {
            failures[projection.document] = error
        }
    }

    /// Writes one projection's rows and, unless an earlier projection of its document
    /// failed, its position (under the lock, inside a transaction).
    private func write(_ projection: PendingProjection, into written: inout Counters) throws(AccordError) {
        written.projectedRecords += try writeRows(of: projection)
        // After a failure the position stays behind, so the next open projects the document whole.
        if failures[projection.document] == nil {
            try storePosition(projection.document, projection.stateVector, projection.sequence)
        }
        written.malformedRecords += projection.malformed
    }

    /// Writes the rows of one projection (under the lock, inside a transaction) and
    /// returns how many records it wrote or removed. Each model's records go in many
    /// per statement, the ones their transaction created apart from the others; a model
    /// the index no longer has with the schema its rows were read with is skipped.
    private func writeRows(of projection: PendingProjection) throws(AccordError) -> Int {
        var projected = 0
        var written: [RecordData] = []
        var createdWritten: [RecordData] = []
        for group in projection.models {
            guard let modelTables = tables[group.schema.name], modelTables.schema == group.schema else { continue }
            written.removeAll(keepingCapacity: true)
            createdWritten.removeAll(keepingCapacity: true)
            for row in group.rows {
                if let record = row.record {
                    if row.created { createdWritten.append(record) } else { written.append(record) }
                } else {
                    try deleteRow(row.id, of: modelTables, document: projection.document)
                }
            }
            if !written.isEmpty {
                try insertMany(written, into: modelTables, document: projection.document)
            }
            if !createdWritten.isEmpty {
                try insertMany(createdWritten, into: modelTables, document: projection.document, created: true)
            }
            projected += group.rows.count
        }
        return projected
    }
}
