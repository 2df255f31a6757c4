import Foundation
import AccordCRDT
import AccordTesting

/// The golden vectors and traces in `shared/` (located by ``SharedDirectory``).
enum SharedFixtures {
    static func url(_ relative: String) -> URL { SharedDirectory.file(relative) }

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
