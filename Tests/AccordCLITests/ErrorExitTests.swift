import Foundation
import Testing

/// Failures print `error: CODE: message` on stderr and exit with the code's status.
@Suite struct ErrorExitTests {
    static func truncatedUpdate() throws -> [UInt8] {
        let c = try Vectors.vectorCase("merge_updates")
        let bytes = Vectors.hex(try #require(c["merged_hex"] as? String))
        return Array(bytes.prefix(bytes.count / 2))
    }

    @Test(arguments: [["yjs", "inspect", "bad.bin"], ["yjs", "merge", "good.bin", "bad.bin", "-o", "out.bin"]])
    func truncatedUpdateIsMalformed(args: [String]) throws {
        let dir = try TemporaryDirectory()
        try dir.write(try Self.truncatedUpdate(), to: "bad.bin")
        try dir.write(Vectors.hex("01010100040101740568656c6c6f00"), to: "good.bin")
        let result = try dir.run(args)
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("error: MALFORMED_UPDATE: bad.bin: "), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("out.bin").path))
    }

    @Test(arguments: [["yjs", "inspect", "missing.bin"], ["yjs", "merge", "missing.bin", "-o", "out.bin"]])
    func missingFileIsIOError(args: [String]) throws {
        let dir = try TemporaryDirectory()
        let result = try dir.run(args)
        #expect(result.status == 74)
        #expect(result.stderr.hasPrefix("error: IO_ERROR: missing.bin: "), "\(result.stderr)")
    }

    @Test func unwritableOutputIsIOError() throws {
        let dir = try TemporaryDirectory()
        try dir.write(Vectors.hex("01010100040101740568656c6c6f00"), to: "good.bin")
        let result = try dir.run("yjs", "merge", "good.bin", "-o", "no-such-dir/out.bin")
        #expect(result.status == 74)
        #expect(result.stderr.hasPrefix("error: IO_ERROR: no-such-dir/out.bin: "), "\(result.stderr)")
    }

    static let badUsages: [[String]] = [
        [],
        ["frobnicate"],
        ["yjs"],
        ["yjs", "frobnicate"],
        ["yjs", "merge", "good.bin"],
        ["yjs", "merge", "-o", "out.bin"],
        ["yjs", "merge", "good.bin", "-o"],
        ["yjs", "merge", "good.bin", "-o", "a.bin", "-o", "b.bin"],
        ["yjs", "inspect"],
        ["yjs", "inspect", "good.bin", "good.bin"],
        ["yjs", "inspect", "--bogus", "good.bin"],
    ]

    @Test(arguments: badUsages) func badUsageExitsTwo(args: [String]) throws {
        let dir = try TemporaryDirectory()
        try dir.write(Vectors.hex("01010100040101740568656c6c6f00"), to: "good.bin")
        let result = try dir.run(args)
        #expect(result.status == 2, "\(args)")
        #expect(result.stderr.hasPrefix("error: INVALID_ARGUMENT: "), "\(args): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
