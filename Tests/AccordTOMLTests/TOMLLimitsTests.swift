import AccordTOML
import Foundation
import Testing

/// Big and hostile inputs: they finish, and deep nesting is refused with an error
/// rather than a stack overflow. No timing assertions (benchmarks measure speed).
@Suite struct TOMLLimitsTests {
    @Test(arguments: ["[", "{a="]) func tenThousandNestedLevelsAreRefused(_ opener: String) {
        let text = "x = " + String(repeating: opener, count: 10_000)
        do {
            _ = try TOML.parse(text)
            Issue.record("accepted")
        } catch {
            #expect(error.message.contains("nested deeper than 128 levels"), "\(error)")
            #expect(error.position.line == 1)
        }
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        let depth = 128
        let text = "x = " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n"
        var value = try #require(try TOML.parse(text)["x"])
        for _ in 1..<depth { value = try #require(value.arrayValue?.first) }
        #expect(value == .array([]))
        #expect(throws: TOMLError.self) {
            try TOML.parse("x = " + String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1))
        }
    }

    @Test func longDottedKeysAreRefused() {
        let key = Array(repeating: "a", count: 10_000).joined(separator: ".")
        #expect(throws: TOMLError.self) { try TOML.parse(key + " = 1\n") }
        #expect(throws: TOMLError.self) { try TOML.parse("[" + key + "]\n") }
    }

    /// About 10 MB of tables, arrays and strings: parses, and the resident size grows
    /// by a bounded multiple of the input.
    @Test func tenMegabyteDocument() throws {
        var text = ""
        text.reserveCapacity(10_500_000)
        var i = 0
        while text.utf8.count < 10_000_000 {
            text += "[models.m\(i).fields.f\(i)]\ntype = \"string\"\nindexed = true\nmax = \(i)\n"
            text += "tags = [\"a\", \"b\", 1.5, 1979-05-27T07:32:00Z, { k = 'v' }]\n"
            text += "note = \"\"\"multi\nline \\u00E9 \(i)\"\"\"\n\n"
            i += 1
        }
        let before = Self.residentBytes()
        let table = try TOML.parse(text)
        let after = Self.residentBytes()
        #expect(table["models"]?.tableValue?.count == i)
        if let before, let after {
            #expect(after - before < 40 * text.utf8.count, "grew \(after - before) bytes for \(text.utf8.count)")
        }
    }

    @Test func oneLongLineKeepsColumnsRight() throws {
        let pairs = (0..<50_000).map { "k\($0) = \($0)" }.joined(separator: ", ")
        let table = try TOML.parse("t = { " + pairs + " }\n")
        let t = try #require(table["t"]?.tableValue)
        #expect(t.count == 50_000)
        #expect(t.position(of: "k1") == TOMLPosition(line: 1, column: 15))
    }

    /// VmRSS from /proc (Linux); nil elsewhere.
    static func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }
}
