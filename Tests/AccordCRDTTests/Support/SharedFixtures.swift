import Foundation
import AccordCRDT

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

enum Hex {
    static func decode(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(hex.count / 2)
        var it = hex.utf8.makeIterator()
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

    static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xf)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
