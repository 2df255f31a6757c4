import AccordCRDT
import Foundation
import Testing

/// Bad records, filters and schema files exit 65 with the coded error on stderr and
/// change nothing; usage errors exit 2 (the CLI's usage status); help succeeds.
@Suite struct RecordsErrorTests {
    struct BadPut: CustomTestStringConvertible, Sendable {
        var model = "tasks"
        var lines: [String]
        var code: String
        /// The line the error names, when it is about one record.
        var line: Int?
        var testDescription: String { "\(code) \(lines)" }
    }

    static let badPuts: [BadPut] = [
        BadPut(lines: [#"{"id":"t9","hours":"many"}"#], code: "INVALID_ARGUMENT", line: 1),
        BadPut(lines: [#"{"id":"t9","nope":1}"#], code: "INVALID_ARGUMENT", line: 1),
        // A good record before a bad one is not written either.
        BadPut(lines: [#"{"id":"t9","title":"fine"}"#, "", #"{"id":"t10","done":"yes"}"#], code: "INVALID_ARGUMENT", line: 3),
        BadPut(lines: [#"{"id":"t9","due":"2026-03-01"}"#], code: "INVALID_ARGUMENT", line: 1),
        BadPut(lines: [#"{"id":"t9","tags":["a","b","c","d","e"]}"#], code: "INVALID_ARGUMENT", line: 1),
        BadPut(lines: [#"{"id":"t9","title":{"nested":true}}"#], code: "INVALID_ARGUMENT", line: 1),
        BadPut(lines: [#"{"id":"t9","title":"x"}"#, #"{"id":"t10""#], code: "MALFORMED_JSON", line: 2),
        BadPut(lines: [#"["t9"]"#], code: "INVALID_ARGUMENT", line: 1),
        // notes do not auto-assign ids.
        BadPut(model: "notes", lines: [#"{"text":"no id"}"#], code: "INVALID_ARGUMENT", line: 1),
        // t1 in document "a" holds slug "milk".
        BadPut(lines: [#"{"id":"t9","slug":"fresh"}"#, #"{"id":"t10","slug":"milk"}"#], code: "UNIQUE_VIOLATION"),
    ]

    @Test(arguments: badPuts) func aBadRecordExits65AndLeavesTheStoreUnchanged(bad: BadPut) throws {
        let fixture = try RecordsRoundTripTests.seeded()
        let before = try #require(try fixture.state(of: "b"))
        let result = try fixture.put("b", model: bad.model, bad.lines)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("error: \(bad.code): "), "\(result.stderr)")
        if let line = bad.line { #expect(result.stderr.contains("stdin line \(line): "), "\(result.stderr)") }
        #expect(result.stdout.isEmpty)
        let after = try #require(try fixture.state(of: "b"))
        #expect(after.update == before.update)
        #expect(after.sequence == before.sequence)
        #expect(after.entries == before.entries)
        #expect(try fixture.json("count")["count"] == .int(4))
    }

    @Test func aRefusedPutDoesNotCreateTheDocument() throws {
        let fixture = try RecordsRoundTripTests.seeded()
        let result = try fixture.put("fresh", [#"{"id":"x","hours":"many"}"#])
        #expect(result.status == 65)
        #expect(try fixture.state(of: "fresh") == nil)
    }

    static let badQueries: [[String]] = [
        ["query", #"{"hours":{"$bogus":1}}"#],
        ["query", #"{"hours""#],
        ["query", #"{"nope":1}"#],
        ["query", #"["hours"]"#],
        ["query", "--sort", "nope:1"],
        ["query", "--sort", "hours:2"],
        ["query", "--cursor", "not-a-cursor"],
        ["count", #"{"$or":[]}"#],
        ["aggregate", "--options", #"{"operations":[{"type":"median","field":"hours"}]}"#],
        ["aggregate", "--options", #"{"groupBy":["nope"]}"#],
        ["aggregate", "--options", #"{"operations":[{"type":"sum","field":"title"}]}"#],
        ["aggregate", "--options", #"{"filter":{"hours":{"$gt":[1]}}}"#],
        ["aggregate", "--options", #"{"groupBy":["category"],"sort":{"field":"nope"}}"#],
        ["aggregate", "--options", "{not json"],
    ]

    @Test(arguments: badQueries) func aBadFilterExits65WithInvalidQuery(args: [String]) throws {
        let fixture = try RecordsRoundTripTests.seeded()
        let result = try fixture.run(args[0], Array(args.dropFirst()))
        #expect(result.status == 65, "\(args): \(result.stderr)")
        #expect(result.stderr.hasPrefix("error: INVALID_QUERY: "), "\(args): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func anInvalidSchemaFileExits65NamingWhatIsWrong() throws {
        let cases: [(schema: String, code: String, fragment: String)] = [
            (#"{"name":"tasks","fields":[{"name":"title","type":"text"}]}"#, "INVALID_SCHEMA", "fields[0].type: unknown type \"text\""),
            (#"{"name":"tasks","fields":[{"name":"title","type":"string","indexd":true}]}"#, "INVALID_SCHEMA", "fields[0].indexd: unknown key"),
            (#"{"name":"tasks","fields":[{"name":"n","type":"number","default":"one"}]}"#, "INVALID_SCHEMA", "the default of field \"n\""),
            (#"{"name":"tasks","fields":[{"name":"type","type":"string"}]}"#, "RESERVED_FIELD_NAME", "Field 'type' is reserved"),
            (#"{"name":"tasks","fields":[]"#, "MALFORMED_JSON", "schema.json: "),
        ]
        for (schema, code, fragment) in cases {
            let fixture = try RecordsFixture(schemaText: schema)
            let result = try fixture.dir.run(
                ["records", "put", "--store", fixture.store, "--doc", "a", "--schema", fixture.schema], stdin: #"{"id":"x"}"#)
            #expect(result.status == 65, "\(schema): \(result.stderr)")
            #expect(result.stderr.hasPrefix("error: \(code): schema.json: "), "\(result.stderr)")
            #expect(result.stderr.contains(fragment), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fixture.storePath), "a bad schema opened the store")
        }
    }

    static let badUsages: [[String]] = [
        ["records"],
        ["records", "frobnicate"],
        ["records", "query", "--schema", "schema.json", "--model", "tasks"],
        ["records", "query", "--store", "store.sqlite", "--model", "tasks"],
        ["records", "put", "--store", "store.sqlite", "--schema", "schema.json", "--model", "tasks"],
        ["records", "put", "--store", "store.sqlite", "--schema", "schema.json", "--model", "tasks", "--doc", "a//b"],
        ["records", "query", "--store", "store.sqlite", "--schema", "schema.json", "--model", "nope"],
        ["records", "query", "--store", "store.sqlite", "--schema", "schema.json"],
        ["records", "query", "--store", "store.sqlite", "--schema", "schema.json", "--model", "tasks", "--limit", "-1"],
        ["records", "query", "--store", "store.sqlite", "--schema", "schema.json", "--model", "tasks", "{}", "{}"],
        ["records", "count", "--store", "store.sqlite", "--schema", "schema.json", "--model", "tasks", "--sort", "hours:1"],
        ["records", "query", "--store", "store.sqlite", "--schema", "schema.json", "--model", "tasks", "--documents", "a,"],
    ]

    @Test(arguments: badUsages) func usageErrorsExitTwo(args: [String]) throws {
        let fixture = try RecordsRoundTripTests.seeded()
        let result = try fixture.dir.run(args)
        #expect(result.status == 2, "\(args): \(result.stderr)")
        #expect(result.stderr.hasPrefix("error: INVALID_ARGUMENT: "), "\(args): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func readingAStoreThatDoesNotExistIsAnIOErrorAndCreatesNothing() throws {
        let fixture = try RecordsFixture()
        let result = try fixture.run("query")
        #expect(result.status == 74)
        #expect(result.stderr.hasPrefix("error: IO_ERROR: "), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.storePath))
    }

    @Test(arguments: [
        (["records", "--help"], "accord records put --store <file> --doc <id>"),
        (["records", "put", "--help"], "ndjson"),
        (["records", "query", "-h"], "nextCursor"),
        (["records", "count", "--help"], "{\"count\": n}"),
        (["records", "aggregate", "--help"], "groupBy"),
        (["--help"], "accord records put|query|count|aggregate"),
    ]) func helpPrintsAndSucceeds(args: [String], fragment: String) throws {
        let result = try TemporaryDirectory().run(args)
        #expect(result.status == 0)
        #expect(result.stdout.contains(fragment), "\(result.stdout)")
        #expect(result.stderr.isEmpty)
    }
}
