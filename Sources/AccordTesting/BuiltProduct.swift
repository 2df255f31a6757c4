import Foundation

/// Finds an executable product of this package built alongside the tests.
public enum BuiltProduct {
    /// `$<environment>` when set; else `name` beside the test bundle (SwiftPM puts every
    /// product of one build configuration in one directory, and test targets depend on
    /// the executables they run, so those are built first); else `.build/debug/<name>`
    /// in the repository.
    public static func url(named name: String, environment: String? = nil) -> URL? {
        let fm = FileManager.default
        var candidates: [URL] = []
        if let environment, let env = ProcessInfo.processInfo.environment[environment], !env.isEmpty {
            candidates.append(URL(fileURLWithPath: env))
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name))
        }
        if let main = Bundle.main.executableURL {
            candidates.append(main.deletingLastPathComponent().appendingPathComponent(name))
        }
        // Sources/AccordTesting/BuiltProduct.swift -> repository root.
        let repo = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(repo.appendingPathComponent(".build/debug/\(name)"))
        return candidates.first { fm.isExecutableFile(atPath: $0.path) }
    }
}
