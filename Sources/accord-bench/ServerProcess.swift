import Foundation

/// A server under test running as a child process. Its stdout lines are kept so the
/// launcher can wait for the startup lines (`listening <port>` and the like); stdout and
/// stderr are both copied to a log file, whose tail goes into error messages.
final class ServerProcess: @unchecked Sendable {
    // Invariant: `lines` and `outputEnded` are only touched with `lock` held; `process`
    // is configured before `run()` and afterwards only queried (Foundation's Process
    // is thread-safe for that) or sent signals.
    private let lock = NSLock()
    private var lines: [String] = []
    private var outputEnded = false
    private let process = Process()
    private let log: FileHandle
    let logPath: String
    let command: String

    /// Starts `executable` with `arguments`.
    init(executable: String, arguments: [String], logPath: String) throws(BenchFailure) {
        self.logPath = logPath
        self.command = ([executable] + arguments).joined(separator: " ")
        guard FileManager.default.createFile(atPath: logPath, contents: nil),
            let log = FileHandle(forWritingAtPath: logPath)
        else { throw BenchFailure("cannot create the server log \(logPath)") }
        self.log = log
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardError = log
        let output = Pipe()
        process.standardOutput = output
        try Self.spawnWithSignalsUnblocked(process, command)
        // A thread of its own: reading blocks, and the pipe must be drained for as long
        // as the server runs or its prints would stall it.
        let reader = output.fileHandleForReading
        Thread { [self] in readOutput(reader) }.start()
    }

    var pid: Int32 { process.processIdentifier }

    /// Starts `process` from a new thread that blocks no signals. A child inherits the
    /// signal mask of the thread that spawns it (Foundation's Process does not reset
    /// it), and Swift concurrency threads block SIGTERM and SIGINT: a server started from
    /// one never sees the SIGTERM that `stop` sends (Python's handlers stay pending).
    private static func spawnWithSignalsUnblocked(_ process: Process, _ command: String) throws(BenchFailure) {
        let outcome = SpawnOutcome()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var none = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, nil)
            do {
                try process.run()
            } catch {
                outcome.error = error.localizedDescription
            }
            done.signal()
        }
        thread.start()
        done.wait()
        if let error = outcome.error { throw BenchFailure("cannot start \(command): \(error)") }
    }

    private func readOutput(_ reader: FileHandle) {
        var pending = Data()
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            log.write(chunk)
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                lock.withLock { lines.append(line) }
            }
        }
        lock.withLock { outputEnded = true }
        try? log.close()  // only this thread writes to it
    }

    /// Waits until `match` accepts one of the stdout lines (already printed or still to
    /// come) and returns its value. Fails when the process exits first or `timeout` passes.
    func waitForLine<T>(
        _ what: String, timeout: Duration = .seconds(30), _ match: (String) -> T?
    ) async throws(BenchFailure) -> T {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (seen, ended) = lock.withLock { (lines, outputEnded) }
            if let value = seen.lazy.compactMap(match).first { return value }
            if ended || !process.isRunning {
                throw BenchFailure("\(command) ended before printing \(what)\(exitDescription)\n\(logTail())")
            }
            guard ContinuousClock.now < deadline else {
                throw BenchFailure("\(command) printed no \(what) within \(timeout)\n\(logTail())")
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Throws when the server is no longer running (it crashed or exited during a case:
    /// whatever the case measured is then not a figure of the server).
    func checkAlive() throws(BenchFailure) {
        guard !process.isRunning else { return }
        throw BenchFailure("\(command) exited during the case\(exitDescription)\n\(logTail())")
    }

    private var exitDescription: String {
        process.isRunning ? "" : " (exit status \(process.terminationStatus))"
    }

    /// The resident set size now: `VmRSS` of `/proc/<pid>/status`.
    func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.count >= 2, let kb = Int(parts[1]) { return kb * 1024 }
        }
        return nil
    }

    /// SIGTERM, then SIGKILL if it has not exited within `grace`. Returns once it exited.
    func stop(grace: Duration = .seconds(15)) async {
        guard process.isRunning else { return }
        process.terminate()
        if await exited(within: grace) { return }
        TraceBenchmark.log("warning: \(command) ignored SIGTERM for \(grace); killing it")
        kill(pid, SIGKILL)
        _ = await exited(within: .seconds(10))
    }

    /// Whether the process exited (without a signal from us) within `limit`.
    func exited(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while process.isRunning {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// The last lines of the log, for error messages.
    func logTail(bytes: Int = 3000) -> String {
        guard let data = FileManager.default.contents(atPath: logPath), !data.isEmpty else {
            return "(\(logPath) is empty)"
        }
        let text = String(decoding: data.suffix(bytes), as: UTF8.self)
        return "last output of the server (\(logPath)):\n\(text)"
    }
}

/// The spawn thread's error, read after the semaphore ordered the write before it.
private final class SpawnOutcome: @unchecked Sendable {
    var error: String?
}
