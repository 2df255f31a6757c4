import Foundation

/// A fresh directory per test, removed when the test lets go of it.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("accord-cli-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `bytes` to `name` and returns the name (commands run inside the directory).
    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        try Data(bytes).write(to: url.appendingPathComponent(name))
        return name
    }

    func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url.appendingPathComponent(name)))
    }

    func run(_ args: String...) throws -> CLIResult { try CLI.run(args, in: url) }
    func run(_ args: [String]) throws -> CLIResult { try CLI.run(args, in: url) }
    func run(_ args: [String], stdin: String) throws -> CLIResult { try CLI.run(args, in: url, stdin: Array(stdin.utf8)) }
    var path: String { url.path }
}
