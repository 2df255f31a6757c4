import Foundation
import AccordTesting

/// What one run of `accord` did.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the built `accord` executable as a subprocess, the way users and scripts do.
enum CLI {
    /// `$ACCORD_BIN` when set; else the `accord` built beside the tests.
    static let executable: URL? = BuiltProduct.url(named: "accord", environment: "ACCORD_BIN")

    /// Runs `accord args...` in `directory`; output goes through temporary files, so a
    /// large output can never block the child on a full pipe. The child gets
    /// `environment` when given, else this process's environment. Its stdin is `stdin`
    /// (through a file as well), or empty.
    static func run(
        _ args: [String], in directory: URL, environment: [String: String]? = nil, stdin: [UInt8]? = nil
    ) throws -> CLIResult {
        guard let executable else {
            throw CLIError("accord executable not found; run 'swift build' or set ACCORD_BIN")
        }
        let out = directory.appendingPathComponent(".stdout-\(UUID().uuidString)")
        let err = directory.appendingPathComponent(".stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = args
        if let environment { process.environment = environment }
        process.currentDirectoryURL = directory
        let outHandle = try FileHandle(forWritingTo: out)
        let errHandle = try FileHandle(forWritingTo: err)
        process.standardOutput = outHandle
        process.standardError = errHandle
        let input = directory.appendingPathComponent(".stdin-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: input) }
        if let stdin {
            try Data(stdin).write(to: input)
            process.standardInput = try FileHandle(forReadingFrom: input)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        process.waitUntilExit()
        try outHandle.close()
        try errHandle.close()
        return CLIResult(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: out), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self)
        )
    }
}

struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
