import Foundation

/// A Python script run to completion by the test interpreter (`$ACCORD_PYTHON`, the
/// venv `make test` sets up, pycrdt in it): what it printed and how it exited. For
/// one-shot comparisons with pycrdt; ``PycrdtPeer`` is the long-lived peer.
public enum PythonScript {
    public struct Result: Sendable {
        /// Its standard output.
        public let output: String
        public let status: Int32
    }

    /// Runs `python -c script arguments...` and waits for it.
    /// - Throws: ``PycrdtPeer/Failure`` when `ACCORD_PYTHON` is not set; what `Process`
    ///   throws when the interpreter cannot start.
    public static func run(_ script: String, arguments: [String] = []) throws -> Result {
        guard let python = ProcessInfo.processInfo.environment["ACCORD_PYTHON"], !python.isEmpty else {
            throw PycrdtPeer.Failure("ACCORD_PYTHON is not set; run `make test` (scripts/test.sh sets it)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(output: String(decoding: data, as: UTF8.self), status: process.terminationStatus)
    }
}
