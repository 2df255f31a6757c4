import Foundation

/// Runs scripts/toml_reference.py once over many documents: tomllib's verdict on each,
/// as `ok <canonical>` or `error <message>` (see the script).
enum TOMLReference {
    struct Unavailable: Error, CustomStringConvertible { var description: String }

    static var python: String? {
        guard let p = ProcessInfo.processInfo.environment["ACCORD_PYTHON"], !p.isEmpty else { return nil }
        return p
    }

    static var script: URL {
        // Tests/AccordTOMLTests/Support/TOMLReference.swift → repository root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/toml_reference.py")
    }

    static func run(_ documents: [String]) throws -> [String] {
        guard let python else {
            throw Unavailable(description: "ACCORD_PYTHON is not set; run bash scripts/test.sh")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("accord-toml-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        let output = dir.appendingPathComponent("out.txt")
        try JSONSerialization.data(withJSONObject: documents).write(to: input)
        FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path]
        process.standardInput = try FileHandle(forReadingFrom: input)
        let out = try FileHandle(forWritingTo: output)
        process.standardOutput = out
        try process.run()
        process.waitUntilExit()
        try out.close()
        guard process.terminationStatus == 0 else {
            throw Unavailable(description: "toml_reference.py exited \(process.terminationStatus)")
        }
        let text = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
