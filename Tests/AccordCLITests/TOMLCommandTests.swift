import AccordTOML
import Foundation
import Testing

/// `accord toml decode|encode` as a TOML conformance harness runs them.
@Suite struct TOMLCommandTests {
    static let document = """
        title = "TOML \\"example\\""
        "é" = 1
        "e\\u0301" = 2
        [owner]
        dob = 1979-05-27T07:32:00-08:00
        [database]
        ports = [ 8000, 8001, 8002 ]
        temp_targets = { cpu = 79.5, case = 72.0, low = -inf, odd = nan }
        when = [1979-05-27, 07:32:00.5, 1979-05-27T07:32:00]
        [[products]]
        name = "Hammer"
        [[products]]
        enabled = false

        """

    @Test func decodePrintsTaggedJSON() throws {
        let dir = try TemporaryDirectory()
        let result = try dir.run(["toml", "decode"], stdin: "a = 1\nb = [\"x\", 1.5, inf]\n[t]\nd = 2024-02-29\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == """
            {"a":{"type":"integer","value":"1"},"b":[{"type":"string","value":"x"},{"type":"float","value":"1.5"},\
            {"type":"float","value":"inf"}],"t":{"d":{"type":"date-local","value":"2024-02-29"}}}

            """)
    }

    @Test func decodeThenEncodeRoundTrips() throws {
        let dir = try TemporaryDirectory()
        let decoded = try dir.run(["toml", "decode"], stdin: Self.document)
        try #require(decoded.status == 0, "\(decoded.stderr)")
        let encoded = try dir.run(["toml", "encode"], stdin: decoded.stdout)
        try #require(encoded.status == 0, "\(encoded.stderr)")
        #expect(try TOML.parse(encoded.stdout) == TOML.parse(Self.document), "\(encoded.stdout)")
        let again = try dir.run(["toml", "decode"], stdin: encoded.stdout)
        #expect(again.status == 0)
        #expect(try TOML.parse(Self.document)["é"] == .integer(1))
        #expect(again.stdout.contains("\"e\u{301}\":{\"type\":\"integer\",\"value\":\"2\"}"))
    }

    @Test(arguments: [
        ("a = 1\nb = \n", "line 2, column 5: expected a value, found a newline"),
        ("[a]\nx = 1\n[a]\n", "line 3, column 1: table [a] defined twice (first at line 1)"),
        ("s = \"\\x\"\n", "line 1, column 6: invalid escape \\x"),
    ]) func invalidTOMLExitsOneWithThePosition(input: String, message: String) throws {
        let dir = try TemporaryDirectory()
        let result = try dir.run(["toml", "decode"], stdin: input)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: MALFORMED_TOML: stdin: \(message)\n", "\(result.stderr)")
    }

    @Test func invalidUTF8ExitsOne() throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run(["toml", "decode"], in: dir.url, stdin: Array("a = \"".utf8) + [0xFF] + Array("\"\n".utf8))
        #expect(result.status == 1)
        #expect(result.stderr.contains("line 1, column 6: invalid UTF-8"), "\(result.stderr)")
    }

    @Test(arguments: [
        "{\"a\": {\"type\": \"integer\", \"value\": \"x\"}}",
        "{\"a\": {\"type\": \"date-local\", \"value\": \"2023-02-29\"}}",
        "{\"a\": {\"type\": \"widget\", \"value\": \"1\"}}",
        "{\"a\": 1}",
        "[1]",
        "{\"a\": ",
    ]) func badTaggedJSONIsRefused(input: String) throws {
        let dir = try TemporaryDirectory()
        let result = try dir.run(["toml", "encode"], stdin: input)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: MALFORMED_JSON: stdin: "), "\(result.stderr)")
    }

    @Test func helpAndUsage() throws {
        let dir = try TemporaryDirectory()
        let help = try dir.run("toml", "--help")
        #expect(help.status == 0)
        #expect(help.stdout.contains("accord toml decode"))
        #expect(try dir.run("--help").stdout.contains("accord toml decode|encode"))
        #expect(try dir.run("toml").status == 2)
        #expect(try dir.run("toml", "frobnicate").status == 2)
    }
}
