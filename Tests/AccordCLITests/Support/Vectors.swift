import Foundation

/// The golden vectors in `shared/design/vectors/vectors.json`: `$ACCORD_SHARED`, else
/// `../shared` beside the repository checkout.
enum Vectors {
    static var sharedDirectory: URL {
        if let env = ProcessInfo.processInfo.environment["ACCORD_SHARED"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        // Tests/AccordCLITests/Support/Vectors.swift -> repository root -> ../shared.
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared")
    }

    /// Parsed afresh on each call: Foundation's JSON objects are not `Sendable`.
    static func cases() throws -> [[String: Any]] {
        let data = try Data(contentsOf: sharedDirectory.appendingPathComponent("design/vectors/vectors.json"))
        let root = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return root?["cases"] as? [[String: Any]] ?? []
    }

    static func vectorCase(_ id: String) throws -> [String: Any] {
        guard let c = try cases().first(where: { $0["id"] as? String == id }) else {
            throw CLIError("vector case \(id) not found")
        }
        return c
    }

    static func hex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = text.utf8.makeIterator()
        while let hi = it.next(), let lo = it.next() {
            out.append(UInt8(nibble(hi) << 4 | nibble(lo)))
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> Int {
        switch c {
        case 0x30...0x39: Int(c - 0x30)
        case 0x61...0x66: Int(c - 0x61 + 10)
        case 0x41...0x46: Int(c - 0x41 + 10)
        default: 0
        }
    }
}
