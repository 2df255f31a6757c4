import Foundation

/// The project's shared data (golden vectors, editing traces): `$ACCORD_SHARED` when
/// set (`make test` sets it), else `../shared` beside the repository checkout.
public enum SharedDirectory {
    public static var url: URL {
        if let env = ProcessInfo.processInfo.environment["ACCORD_SHARED"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        // This file is Sources/AccordTesting/SharedDirectory.swift inside the repository.
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared")
    }

    /// A file inside the shared directory, e.g. `design/vectors/vectors.json`.
    public static func file(_ relative: String) -> URL { url.appendingPathComponent(relative) }
}
