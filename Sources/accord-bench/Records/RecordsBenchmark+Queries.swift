import AccordCRDT
import AccordRecords
import AccordStore
import AccordSync
import Foundation

extension RecordsBenchmark {
    /// Each ``RecordsQuery`` through the records API and on the hand-written schema,
    /// after checking that both give the same answer for every probe.
    func measureQueries(_ fixture: TaskFixture, accord: AccordSide, hand: HandWrittenTasks) throws {
        for query in RecordsQuery.all(fixture) where wants(query.name) {
            for probe in 0..<16 {
                let mine = try query.accord(accord.records, probe)
                let theirs = try query.handWritten(hand, probe)
                guard mine == theirs else {
                    throw BenchFailure(
                        "\(query.name): the index and the hand-written schema disagree on probe \(probe): "
                            + "\(mine.prefix(5)) (\(mine.count)) against \(theirs.prefix(5)) (\(theirs.count))")
                }
            }
            let answer = try query.accord(accord.records, 0)
            let timing = try Timing.perCall(samples: querySamples) { n in _ = try query.accord(accord.records, n) }
            let handTiming = try Timing.perCall(samples: querySamples) { n in _ = try query.handWritten(hand, n) }
            var line = RecordsLine(query.name, unit: "µs", timing: timing, note: query.note + " (\(count) records)")
            line["results"] = BenchRecord.int(answer.count)
            line.compare(withSQLite: handTiming.median)
            if query.name == "query_indexed_eq", let ratio = line["ratio_vs_sqlite"]?.doubleValue {
                line.target("≤ 1.5× hand-written SQLite", met: ratio <= 1.5)
            }
            line.emit()
        }
    }

    /// `save_one_visible`: one new task saved through `ClientRecords.save` and read back
    /// with `find`, as a UI does after the user adds a task. Hand-written: one SQLite
    /// transaction (row and tags) and a select by id.
    func measureSaveOne(_ fixture: TaskFixture, accord: AccordSide, hand: HandWrittenTasks) async throws {
        let model = TaskFixture.model.name
        let clock = ContinuousClock()
        var times: [Double] = []
        var warmup = 0.0
        for n in 0...saveSamples {
            let task = fixture.task(count + n)
            let start = clock.now
            let write = RecordWrite(id: task.id, values: task.values)
            try await accord.records.save(model, write, in: Self.document, client: accord.client)
            let found = try accord.records.find(model, id: task.id)
            let elapsed = Timing.milliseconds(clock.now - start) * 1_000
            guard found?["title"] == .string(task.title) else { throw BenchFailure("save_one_visible: \(task.id) not visible") }
            if n == 0 { warmup = elapsed } else { times.append(elapsed) }
        }
        var handTimes: [Double] = []
        for n in 0...saveSamples {
            let task = fixture.task(count + n)
            let start = clock.now
            try hand.save([task])
            let found = try hand.byID(task.id)
            let elapsed = Timing.milliseconds(clock.now - start) * 1_000
            guard found.first?.title == task.title else {
                throw BenchFailure("save_one_visible (sqlite): \(task.id) not visible")
            }
            if n > 0 { handTimes.append(elapsed) }
        }
        let timing = Timing(samples: times, warmup: warmup)
        var line = RecordsLine("save_one_visible", unit: "µs", timing: timing, note:
            "ClientRecords.save of one new task into the \(count)-record document (Doc transaction, store append, "
                + "index projection, saved record read back), then find(id); the store's durable flush is deferred "
                + "(10 ms flush delay) as in an app; hand-written: one SQLite transaction, then a select by id")
        line.compare(withSQLite: Timing(samples: handTimes, warmup: 0).median)
        line.target("< 1 ms", met: timing.median < 1_000)
        line.emit()
    }
}
