import AccordCRDT
import AccordRecords
import AccordStore
import AccordSync
import Foundation

extension RecordsBenchmark {
    /// `reopen_unchanged_<N>` and `reopen_10_changed_<N>`: what the client does for the
    /// index when it opens a document (`DocumentProjector.catchUp`, which is internal,
    /// so its public steps are called here): open the index file, register the model
    /// (schema unchanged: a fingerprint comparison), read the document's state vector
    /// and log position, ask the index whether it reflects them, and project the whole
    /// document when it does not. Loading the `Doc` from the store is not timed (the
    /// client pays it whether or not records are registered); it is reported as
    /// `doc_load_<N>` for scale.
    func measureReopen(_ fixture: TaskFixture, accord: AccordSide) async throws {
        // Closing stores the position the index reflects, as an app's close does.
        _ = await accord.client.close(Self.document)
        await accord.client.stop()
        let store = accord.store
        let id = Self.document

        let (loadTiming, doc) = try Timing.measure(samples: 3) { try store.load(id) }
        RecordsLine(named("doc_load"), unit: "ms", timing: loadTiming, note:
            "DocumentStore.load of the \(count)-record document (not part of the reopen figures; for scale)").emit()

        var projected = false
        var unused = 0
        let unchanged = try Timing.measure(samples: reopenSamples) { () throws -> Void in
            projected = try catchUp(doc, store: store, indexPath: accord.indexPath, written: &unused) || projected
        }.0
        let outcome = projected ? "it PROJECTED the document: the position did not match" : "nothing projected"
        var line = RecordsLine(named("reopen_unchanged"), unit: "ms", timing: unchanged, note:
            "open the records index file, register the model, compare the stored state vector and log sequence "
                + "with the document's (catchUp); \(outcome)")
        line["projected"] = .bool(projected)
        line.target("≤ 20 ms", met: unchanged.median <= 20)
        line.emit()

        // Ten records changed while no index was watching (another process, or edits
        // applied before the model was registered): the store's log moves on, the index
        // does not. Each sample changes ten more, untimed, then times the catch-up.
        let clock = ContinuousClock()
        var times: [Double] = []
        var warmup = 0.0
        var allProjected = true
        var lastWritten = 0
        for sample in 0...changedReopenSamples {
            try changeTen(doc, store: store, round: sample, fixture: fixture)
            let start = clock.now
            allProjected = try catchUp(doc, store: store, indexPath: accord.indexPath, written: &lastWritten) && allProjected
            let elapsed = Timing.milliseconds(clock.now - start)
            if sample == 0 { warmup = elapsed } else { times.append(elapsed) }
        }
        var changed = RecordsLine(named("reopen_10_changed"), unit: "ms", timing: Timing(samples: times, warmup: warmup), note:
            "as reopen_unchanged after 10 records changed behind the index's back: catchUp compares every record "
                + "of the document with the index's rows and writes only those that differ (reads all, writes 10)")
        changed["projected"] = .bool(allProjected)
        changed["written"] = .int(Int64(lastWritten))
        changed.emit()
        try store.close()
    }

    /// The index's part of opening a document. Returns whether it projected; records
    /// how many rows the last projection wrote in `lastWritten`.
    private func catchUp(_ doc: Doc, store: DocumentStore, indexPath: String, written: inout Int) throws -> Bool {
        let index = try RecordIndex(path: indexPath)
        defer { written = index.counters.projectedRecords }
        try index.register([TaskFixture.model])
        let stateVector = doc.encodeStateVector()
        let sequence = try store.metadata(Self.document).lastSequence
        guard try index.needsProjection(Self.document, stateVector: stateVector, sequence: sequence) else { return false }
        try index.projectAll(Self.document, doc: doc, sequence: sequence)
        return true
    }

    /// Changes ten existing records in one transaction and appends the update to the
    /// store, as a writer the index does not follow would.
    private func changeTen(_ doc: Doc, store: DocumentStore, round: Int, fixture: TaskFixture) throws {
        var update: [UInt8] = []
        let subscription = doc.onUpdate { bytes, _ in update = bytes }
        defer { subscription.cancel() }
        try doc.transact {
            for k in 0..<10 {
                let task = fixture.task((round * 10 + k) * 97 % count)
                try RecordLayout.write(
                    ["priority": .number(task.priority + 1), "done": .bool(!task.done)], id: task.id, model: TaskFixture.model,
                    in: doc)
            }
        }
        guard !update.isEmpty else { throw BenchFailure("changing ten records made no update") }
        _ = try store.append(update, to: Self.document)
        try store.flush()
    }
}
