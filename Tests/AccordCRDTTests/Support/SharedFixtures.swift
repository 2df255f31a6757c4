import Foundation
import AccordCRDT
import AccordTesting

/// Locates `shared/` (golden vectors and traces): `$ACCORD_SHARED`, else `../shared`
/// beside the repository checkout.
enum SharedFixtures {
    static var directory: URL {
        if let env = ProcessInfo.processInfo.environment["ACCORD_SHARED"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        // This file is Tests/AccordCRDTTests/Support/SharedFixtures.swift inside the repo.
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared")
    }

    static func url(_ relative: String) -> URL { directory.appendingPathComponent(relative) }

    /// `design/vectors/vectors.json`, parsed with Foundation.
    /// Parsed afresh on each call: Foundation's JSON objects are not `Sendable`.
    static var vectors: [String: Any] { load("design/vectors/vectors.json") }
    static var crosscheck: [String: Any] { load("design/vectors/yjs_crosscheck.json") }

    static func load(_ relative: String) -> [String: Any] {
        let data = try! Data(contentsOf: url(relative))
        return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    static var cases: [[String: Any]] { vectors["cases"] as! [[String: Any]] }

    static func vectorCase(_ id: String) -> [String: Any] {
        cases.first { $0["id"] as? String == id }!
    }
}

/// Hex text for bytes; one implementation, shared with AccordTesting.
typealias Hex = AccordTesting.Hex
