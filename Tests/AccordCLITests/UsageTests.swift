import Testing

/// `--help` and `--version` print to stdout and succeed.
@Suite struct UsageTests {
    @Test(arguments: [["--help"], ["-h"], ["help"]]) func mainHelp(args: [String]) throws {
        let result = try TemporaryDirectory().run(args)
        #expect(result.status == 0)
        #expect(result.stdout.contains("accord yjs merge <update>... -o <file>"))
        #expect(result.stdout.contains("accord yjs inspect <update> [--json]"))
        #expect(result.stderr.isEmpty)
    }

    @Test(arguments: [["yjs", "--help"], ["yjs", "merge", "--help"], ["yjs", "inspect", "-h"]])
    func yjsHelp(args: [String]) throws {
        let result = try TemporaryDirectory().run(args)
        #expect(result.status == 0)
        #expect(result.stdout.contains("encodeStateAsUpdate"))
        #expect(result.stdout.contains("--json"))
    }

    @Test func version() throws {
        let result = try TemporaryDirectory().run("--version")
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("accord "))
    }
}
