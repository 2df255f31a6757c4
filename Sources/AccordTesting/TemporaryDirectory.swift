import Foundation

/// A fresh directory under the system's temporary directory, removed when the value
/// is released. Tests put databases and blob files here.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "accord") throws {
        let base = FileManager.default.temporaryDirectory.path
        let path = "\(base)/\(prefix)-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        self.path = path
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
