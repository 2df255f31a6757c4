import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

#if os(Linux) || os(macOS)
/// Kill -9 a writer at random moments; every edit it reported durable must survive,
/// no transaction may be half visible, and SQLite must find the file intact.
@Suite struct StoreCrashTests {
    /// 50 rounds in `make test`, 500 under `make soak` (ACCORD_SOAK=1).
    static let rounds = ProcessInfo.processInfo.environment["ACCORD_SOAK"] == "1" ? 500 : 50

    @Test func reportedEditsSurviveSIGKILL() throws {
        let writer = try #require(BuiltProduct.url(named: "accord-crash-writer"), "accord-crash-writer not built")
        let dir = try TemporaryDirectory()
        let path = dir.file("crash.db")
        var rng = SplitMix64(seed: UInt64(ProcessInfo.processInfo.environment["ACCORD_SEED"] ?? "") ?? 20261129)
        var durable: [Int: Int] = [:]  // round -> highest edit reported durable
        for round in 1...Self.rounds {
            let output = try runAndKill(writer, arguments: [path, String(round)], afterMilliseconds: Int(rng.next() % 120) + 20)
            for line in output.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard fields.count == 3, fields[0] == "durable", let r = Int(fields[1]), let i = Int(fields[2]) else { continue }
                durable[r] = max(durable[r] ?? 0, i)
            }
            try verify(path: path, durable: durable, rounds: round, comment: "after round \(round)")
        }
        // The writer must have made progress in most rounds, or the test checks nothing.
        #expect(durable.count > Self.rounds / 2, "rounds with a durable edit: \(durable.count)")
    }

    /// Starts the writer, waits, SIGKILLs it, and returns what it printed.
    func runAndKill(_ executable: URL, arguments: [String], afterMilliseconds: Int) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait for the first durable line (startup varies a lot on a loaded machine),
        // then let it run for the random interval before the kill.
        let reader = pipe.fileHandleForReading
        let collected = LockedBytes()
        reader.readabilityHandler = { handle in collected.append(handle.availableData) }
        let deadline = Date().addingTimeInterval(20)
        while !collected.text.contains("durable") && process.isRunning && Date() < deadline {
            usleep(2_000)
        }
        usleep(useconds_t(afterMilliseconds * 1_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        reader.readabilityHandler = nil
        collected.append(reader.readDataToEndOfFile())
        return collected.text
    }

    func verify(path: String, durable: [Int: Int], rounds: Int, comment: Comment) throws {
        let check = try SQLiteConnection(path: path)
        var integrity: [String] = []
        try check.prepare("PRAGMA integrity_check").forEachRow { integrity.append($0.text(0)) }
        #expect(integrity == ["ok"], comment)

        let doc = try DocumentStore(path: path).load(DocumentID(validating: "crash"))
        let text = try doc.getText("log").string
        let last = try doc.getMap("last")
        // The text is whole markers only, each round's in order 1, 2, 3, ...
        var seen: [Int: Int] = [:]
        var rest = Substring(text)
        while !rest.isEmpty {
            guard rest.first == "<", let close = rest.firstIndex(of: ">") else {
                Issue.record("text has a partial marker near \(rest.prefix(20))")
                return
            }
            let parts = rest[rest.index(after: rest.startIndex)..<close].split(separator: ":")
            guard parts.count == 2, let round = Int(parts[0]), let i = Int(parts[1]), i == (seen[round] ?? 0) + 1 else {
                Issue.record("unexpected marker \(rest[...close])")
                return
            }
            seen[round] = i
            rest = rest[rest.index(after: close)...]
        }
        for round in 1...rounds {
            let present = seen[round] ?? 0
            #expect(present >= durable[round] ?? 0, "round \(round): \(present) edits, \(durable[round] ?? 0) reported durable; \(comment)")
            // The map entry came in the same transactions as the markers.
            let mapped: Int64 = if case .value(.int(let n))? = last.get(String(round)) { n } else { 0 }
            #expect(Int(mapped) == present, "round \(round): map says \(mapped), text has \(present); \(comment)")
        }
    }
}

final class LockedBytes: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func append(_ more: Data) { lock.withLock { data.append(more) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
#endif
