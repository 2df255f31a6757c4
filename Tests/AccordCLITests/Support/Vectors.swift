import AccordTesting
import Foundation

/// The golden vectors in `shared/design/vectors/vectors.json` (see ``SharedDirectory``).
enum Vectors {
    /// Parsed afresh on each call: Foundation's JSON objects are not `Sendable`.
    static func cases() throws -> [[String: Any]] {
        let data = try Data(contentsOf: SharedDirectory.file("design/vectors/vectors.json"))
        let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return root?["cases"] as? [[String: Any]] ?? []
    }

    static func vectorCase(_ id: String) throws -> [String: Any] {
        guard let c = try cases().first(where: { $0["id"] as? String == id }) else {
            throw CLIError("vector case \(id) not found")
        }
        return c
    }

    static func hex(_ text: String) -> [UInt8] { Hex.decode(text) }
}
