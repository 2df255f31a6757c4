import AccordCRDT
import Foundation
import Testing

/// `accord yjs merge` against the `merge_updates` golden vector (Yjs 13.6).
@Suite struct MergeCommandTests {
    /// The vector's five incremental updates (A's four, then B's one), written to files.
    static func writeInputs(in dir: TemporaryDirectory) throws -> [String] {
        let c = try Vectors.vectorCase("merge_updates")
        let inputs = try #require(c["inputs_hex"] as? [String])
        return try inputs.enumerated().map { try dir.write(Vectors.hex($1), to: "input\($0).bin") }
    }

    static func load(_ bytes: [UInt8]) throws -> Doc {
        let doc = Doc(clientID: 999)
        try doc.applyUpdate(bytes)
        return doc
    }

    @Test func mergedFileHoldsTheRecordedDocument() throws {
        let dir = try TemporaryDirectory()
        let inputs = try Self.writeInputs(in: dir)
        let result = try dir.run(["yjs", "merge"] + inputs + ["-o", "out.bin"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)

        let doc = try Self.load(try dir.read("out.bin"))
        let expected = try #require(try Vectors.vectorCase("merge_updates")["json_after_applying_merged"] as? [String: Any])
        #expect(try doc.getText("t").string == expected["t"] as? String)
        let map = try #require(expected["m"] as? [String: String])
        #expect(try doc.getMap("m").json == .object(map.mapValues { AnyValue.string($0) }))
        #expect(!doc.hasPendingUpdates)
    }

    /// Reversed, every update but B's arrives before its predecessors, so the doc
    /// holds them pending first; the result must not depend on that.
    @Test func reverseOrderGivesTheSameState() throws {
        let dir = try TemporaryDirectory()
        let inputs = try Self.writeInputs(in: dir)
        let forward = try dir.run(["yjs", "merge"] + inputs + ["-o", "forward.bin"])
        let backward = try dir.run(["yjs", "merge", "-o", "backward.bin"] + inputs.reversed())
        #expect(forward.status == 0 && backward.status == 0, "\(forward.stderr) \(backward.stderr)")

        let a = try Self.load(try dir.read("forward.bin"))
        let b = try Self.load(try dir.read("backward.bin"))
        #expect(a.stateVector == b.stateVector)
        #expect(try a.getText("t").string == b.getText("t").string)
        #expect(try a.getMap("m").json == b.getMap("m").json)
        #expect(!b.hasPendingUpdates)
        let dsA = try DecodedUpdate.decode(try dir.read("forward.bin")).deleteSet
        let dsB = try DecodedUpdate.decode(try dir.read("backward.bin")).deleteSet
        #expect(dsA == dsB)
    }

    /// A's updates 0 and 2 only: update 2 waits for clocks 2..3, and the output keeps
    /// it (as Yjs's encodeStateAsUpdate does), so merging in the rest later completes it.
    @Test func pendingStructsAreKept() throws {
        let dir = try TemporaryDirectory()
        let inputs = try Self.writeInputs(in: dir)
        let gap = try dir.run(["yjs", "merge", inputs[0], inputs[2], "-o", "gap.bin"])
        #expect(gap.status == 0, "\(gap.stderr)")
        let partial = try Self.load(try dir.read("gap.bin"))
        #expect(try partial.getText("t").string == "ab")
        #expect(partial.hasPendingUpdates)

        let rest = try dir.run(["yjs", "merge", "gap.bin", inputs[1], inputs[3], inputs[4], "-o", "full.bin"])
        #expect(rest.status == 0, "\(rest.stderr)")
        let full = try Self.load(try dir.read("full.bin"))
        #expect(try full.getText("t").string == "adef")
        #expect(!full.hasPendingUpdates)
    }

    @Test func singleInputRoundTrips() throws {
        let dir = try TemporaryDirectory()
        let c = try Vectors.vectorCase("text_insert")
        let bytes = Vectors.hex(try #require(c["update_v1_hex"] as? String))
        try dir.write(bytes, to: "in.bin")
        let result = try dir.run("yjs", "merge", "in.bin", "--output", "out.bin")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try dir.read("out.bin") == bytes)
    }
}
