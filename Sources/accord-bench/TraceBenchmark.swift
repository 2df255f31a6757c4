import AccordCRDT
import Foundation

/// `accord-bench trace`: the measurements of bench_reference.py, in the same order and
/// with the same names, so scripts/bench_table.py can put them side by side.
struct TraceBenchmark {
    var path: String
    /// Samples for the measurements that replay the whole trace.
    var samples = 5
    /// Samples for encode and load, which are much faster.
    var fastSamples = 20
    /// Child processes for `resident_doc`.
    var residentSamples = 3
    /// Measurement names to run; nil runs all.
    var only: Set<String>?
    /// Where to write the encoded full state (to check its size and hash, or inspect it).
    var writeUpdate: String?

    static let names = ["replay", "replay_with_updates", "encode_v1", "load_v1", "apply_incremental", "resident_doc"]

    func wants(_ name: String) -> Bool { only?.contains(name) ?? true }

    func run() throws {
        let trace = try EditingTrace.load(path: path)
        #if DEBUG
        let build = "debug"
        Self.log("warning: debug build; measure with 'swift build -c release --product accord-bench'")
        #else
        let build = "release"
        #endif
        Self.log("\(trace.name): \(trace.transactions.count) transactions, \(trace.patchCount) patches")

        if wants("replay") {
            let (timing, doc) = try Timing.measure(samples: samples) { try TraceReplay.replay(trace) }
            try TraceReplay.check("replay", doc, against: trace)
            var record = BenchRecord(name: "replay", trace: trace.name, timing: timing)
            record["txns"] = BenchRecord.int(trace.transactions.count)
            record["build"] = .string(build)
            record.emit()
        }

        guard Self.names.dropFirst().contains(where: wants) else { return }
        // Needed by everything below, so it runs whenever any of those is wanted.
        let (replayTiming, (doc, updates)) = try Timing.measure(samples: samples) {
            try TraceReplay.replayCollectingUpdates(trace)
        }
        try TraceReplay.check("replay_with_updates", doc, against: trace)
        let updateBytes = updates.reduce(0) { $0 + $1.count }
        if wants("replay_with_updates") {
            var record = BenchRecord(name: "replay_with_updates", trace: trace.name, timing: replayTiming)
            record["bytes"] = BenchRecord.int(updateBytes)
            record["updates"] = BenchRecord.int(updates.count)
            record["note"] = "bytes = sum of per-transaction update sizes; Doc.onUpdate collects each transaction's update v1"
            record.emit()
        }

        let (encodeTiming, full) = Timing.measure(samples: fastSamples) { doc.encodeStateAsUpdate() }
        if wants("encode_v1") {
            var record = BenchRecord(name: "encode_v1", trace: trace.name, timing: encodeTiming)
            record["bytes"] = BenchRecord.int(full.count)
            record["note"] = "Doc.encodeStateAsUpdate() (Yjs update v1)"
            record.emit()
        }
        if let writeUpdate {
            do {
                try Data(full).write(to: URL(fileURLWithPath: writeUpdate))
            } catch {
                throw BenchFailure("cannot write \(writeUpdate): \(error.localizedDescription)")
            }
        }

        if wants("load_v1") {
            let (timing, loaded) = try Timing.measure(samples: fastSamples) { () throws -> (Doc, String) in
                let d = try TraceReplay.load([full])
                return (d, try TraceReplay.text(of: d))
            }
            try TraceReplay.check("load_v1", loaded.0, against: trace)
            var record = BenchRecord(name: "load_v1", trace: trace.name, timing: timing)
            record["bytes"] = BenchRecord.int(full.count)
            record["note"] = "Doc.applyUpdate(full v1 update) into a fresh Doc, then the text's string"
            record.emit()
        }

        if wants("apply_incremental") {
            let (timing, loaded) = try Timing.measure(samples: samples) { try TraceReplay.load(updates) }
            try TraceReplay.check("apply_incremental", loaded, against: trace)
            var record = BenchRecord(name: "apply_incremental", trace: trace.name, timing: timing)
            record["updates"] = BenchRecord.int(updates.count)
            record["bytes"] = BenchRecord.int(updateBytes)
            record.emit()
        }

        if wants("resident_doc") {
            #if os(Linux)
            try ResidentDoc.measure(trace: trace, update: full, samples: residentSamples).emit()
            #else
            Self.log("resident_doc: skipped (reads /proc; Linux only)")
            #endif
        }
    }

    /// Progress and warnings go to stderr; stdout carries only result lines.
    static func log(_ message: String) {
        FileHandle.standardError.write(Data("accord-bench: \(message)\n".utf8))
    }
}
