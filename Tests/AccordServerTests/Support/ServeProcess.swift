import AccordTesting
import Foundation

/// `accord serve --dev` as a child process, as an operator runs it: port 0, a data
/// directory, and the `dev token:` and `listening <port>` lines read from its stdout.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    let dataDirectory: String
    private(set) var port = 0
    private(set) var token = ""
    /// Where the server's stderr goes (a file, so a chatty server never blocks on a full
    /// pipe); its tail is part of a failure to start.
    let stderrPath = NSTemporaryDirectory() + "accord-serve-\(UUID().uuidString).stderr"

    init(dataDirectory: String, extraArguments: [String] = []) throws {
        guard let binary = BuiltProduct.url(named: "accord", environment: "ACCORD_CLI") else {
            throw TestFailure("the accord binary is not built")
        }
        self.dataDirectory = dataDirectory
        process.executableURL = binary
        process.arguments = ["serve", "--dev", "--port", "0", "--data", dataDirectory] + extraArguments
        let output = Pipe()
        process.standardOutput = output
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
        // Read lines until the port is known (blocking reads: this runs on a test thread
        // briefly, before any async work depends on it).
        let handle = output.fileHandleForReading
        var buffer = ""
        let deadline = Date().addingTimeInterval(30)
        while port == 0 {
            guard Date() < deadline, process.isRunning else {
                let stderr = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
                throw TestFailure("accord serve did not start: \(buffer) \(stderr.suffix(2000))")
            }
            let chunk = handle.availableData
            if chunk.isEmpty { Thread.sleep(forTimeInterval: 0.01); continue }
            buffer += String(decoding: chunk, as: UTF8.self)
            for line in buffer.split(separator: "\n") {
                if line.hasPrefix("dev token: ") { token = String(line.dropFirst("dev token: ".count)) }
                if line.hasPrefix("listening "), let value = Int(line.dropFirst("listening ".count)) { port = value }
            }
        }
    }

    /// SIGKILL: no flush, no goodbye.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then waits for the exit; returns the exit status. When the server did
    /// not exit cleanly, the end of what it wrote to stderr goes to the test's stderr
    /// (the file is removed with this object), so a rare crash at shutdown says why.
    func terminate() -> Int32 {
        process.terminate()
        process.waitUntilExit()
        let status = process.terminationStatus
        if status != 0 || process.terminationReason != .exit {
            let log = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            let tail = log.split(separator: "\n", omittingEmptySubsequences: false).suffix(40).joined(separator: "\n")
            FileHandle.standardError.write(Data("accord serve exited with status \(status) on SIGTERM; its stderr ends:\n\(tail)\n".utf8))
        }
        return status
    }

    deinit {
        if process.isRunning { kill() }
        try? FileManager.default.removeItem(atPath: stderrPath)
    }
}
