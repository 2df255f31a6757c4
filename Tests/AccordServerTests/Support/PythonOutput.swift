import AccordTesting
import Foundation

/// What `script` prints when the test Python (`ACCORD_PYTHON`, the venv `make test`
/// sets up, pycrdt in it) runs it with `arguments`, on a thread of its own.
func pythonOutput(_ script: String, arguments: [String]) async throws -> String {
    guard let python = ProcessInfo.processInfo.environment["ACCORD_PYTHON"], !python.isEmpty else {
        throw TestFailure("ACCORD_PYTHON is not set; run `make test`")
    }
    return try await onThread { () -> String in
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
}
