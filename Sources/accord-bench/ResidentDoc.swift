#if os(Linux)
import AccordCRDT
import Foundation

/// The `resident_doc` measurement: memory a loaded document holds.
///
/// Each sample is a fresh child process (this executable, hidden verb `_resident`), so
/// the replays and updates of the parent do not blur the figure, and the peak is that
/// of a process that only loads the document. The method is the one
/// bench_reference.py uses for pycrdt and loro, so the numbers compare.
enum ResidentDoc {
    static let note = "bytes = RSS delta (/proc/self/statm, after malloc_trim) across loading the full state "
        + "into a fresh doc in a fresh process (after one warm-up load); median over samples; "
        + "times = that load; peak_rss_bytes = child process VmHWM (includes the Swift runtime, Foundation "
        + "and the update bytes)"

    /// Runs `samples` child processes on `update` and reports the medians.
    static func measure(trace: EditingTrace, update: [UInt8], samples: Int) throws(BenchFailure) -> BenchRecord {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("accord-bench-\(UUID().uuidString).bin")
        do {
            try Data(update).write(to: file)
        } catch {
            throw BenchFailure("cannot write \(file.path): \(error.localizedDescription)")
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let expected = trace.endContent.utf16.count
        var deltas: [Double] = []
        var times: [Double] = []
        var peaks: [Double] = []
        for _ in 0..<samples {
            let r = try runChild(file: file.path, expectedLength: expected)
            deltas.append(r.delta)
            times.append(r.ms)
            peaks.append(r.peak)
        }
        var record = BenchRecord(name: "resident_doc", trace: trace.name, timing: Timing(samples: times, warmup: 0))
        record["bytes"] = BenchRecord.int(Int(Timing(samples: deltas, warmup: 0).median))
        record["peak_rss_bytes"] = BenchRecord.int(Int(Timing(samples: peaks, warmup: 0).median))
        record["note"] = .string(note)
        return record
    }

    private static func runChild(file: String, expectedLength: Int) throws(BenchFailure) -> (delta: Double, ms: Double, peak: Double) {
        let process = Process()
        // /proc/self/exe: this very binary, wherever it was started from.
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ["_resident", file, String(expectedLength)]
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
        } catch {
            throw BenchFailure("resident_doc: cannot start child: \(error.localizedDescription)")
        }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let line = String(decoding: output, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        guard process.terminationStatus == 0,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let delta = (object["delta"] as? NSNumber)?.doubleValue,
              let ms = (object["ms"] as? NSNumber)?.doubleValue,
              let peak = (object["peak"] as? NSNumber)?.doubleValue else {
            throw BenchFailure("resident_doc: child failed (status \(process.terminationStatus)): \(line)")
        }
        return (delta, ms, peak)
    }

    /// The child: loads the update once to warm up, then measures RSS across a second
    /// load and prints `{"delta": bytes, "ms": load time, "peak": VmHWM}`.
    static func child(file: String, expectedLength: Int) throws -> Int32 {
        let update = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        func load() throws -> (Doc, Int) {
            let doc = Doc(clientID: 1)
            let text = try doc.getText(TraceReplay.rootName)
            try doc.applyUpdate(update)
            return (doc, text.length)
        }
        do { _ = try load() }
        ProcessMemory.trimHeap()
        guard let before = ProcessMemory.residentBytes() else { throw BenchFailure("cannot read /proc/self/statm") }
        let clock = ContinuousClock()
        let start = clock.now
        let (doc, length) = try load()
        let elapsed = clock.now - start
        ProcessMemory.trimHeap()
        guard let after = ProcessMemory.residentBytes() else { throw BenchFailure("cannot read /proc/self/statm") }
        guard length == expectedLength else {
            throw BenchFailure("resident_doc: loaded text has \(length) UTF-16 units, expected \(expectedLength)")
        }
        let peak = ProcessMemory.peakResidentBytes() ?? 0
        let result: AnyValue = .object(OrderedObject([
            ("delta", .int(Int64(after - before))),
            ("ms", .double(Timing.milliseconds(elapsed))),
            ("peak", .int(Int64(peak))),
        ]))
        FileHandle.standardOutput.write(Data((result.jsonText + "\n").utf8))
        withExtendedLifetime(doc) {}
        return 0
    }
}
#endif
