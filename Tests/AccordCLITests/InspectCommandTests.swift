import AccordCRDT
import Foundation
import Testing

/// `accord yjs inspect`, text and `--json`, on golden vectors.
@Suite struct InspectCommandTests {
    static func merged(_ key: String = "merged_hex") throws -> [UInt8] {
        Vectors.hex(try #require(try Vectors.vectorCase("merge_updates")[key] as? String))
    }

    @Test func textShowsStructsStateVectorsDeleteSetAndRoots() throws {
        let dir = try TemporaryDirectory()
        try dir.write(try Self.merged(), to: "merged.bin")
        let result = try dir.run("yjs", "inspect", "merged.bin")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for expected in [
            "client 2 (1 struct, clocks 0..<1)",
            #"0  Item len=1 origin=- right=- parent="m" sub="k"  Any ["v"]"#,
            "client 1 (3 structs, clocks 0..<6)",
            #"0  Item len=2 origin=- right=- parent="t" sub=-  String "ab""#,
            #"2  Item len=2 origin=1:1 right=- parent=- sub=-  String "cd""#,
            #"4  Item len=2 origin=1:3 right=- parent=- sub=-  String "ef""#,
            "state vector (from update): {2: 1, 1: 6}",
            "delete set: 1: [1, 3)",
            "state vector (after applying): {2: 1, 1: 6}",
            "pending: none",
            #""m" (map): {"k":"v"}"#,
            #""t" (text): "adef""#,
            #"delta: [{"insert":"adef"}]"#,
        ] {
            #expect(lines.contains(expected), "missing line: \(expected)\n\(result.stdout)")
        }
    }

    /// The merge with a hole: a Skip struct, a gap-free state vector of {1: 2} (what
    /// the vector recorded from Yjs), and a document left with pending structs.
    @Test func textShowsSkipAndPending() throws {
        let dir = try TemporaryDirectory()
        try dir.write(try Self.merged("merged_with_gap_hex"), to: "gap.bin")
        let result = try dir.run("yjs", "inspect", "gap.bin")
        #expect(result.status == 0, "\(result.stderr)")
        let recorded = try StateVector.decode(Vectors.hex(
            try #require(try Vectors.vectorCase("merge_updates")["state_vector_from_gap_update_hex"] as? String)))
        #expect(recorded == StateVector([1: 2]))
        #expect(result.stdout.contains("2  Skip len=2"))
        #expect(result.stdout.contains("state vector (from update): {1: 2}"))
        #expect(result.stdout.contains("pending: yes"))
    }

    @Test func jsonParsesAndCarriesTheSameInformation() throws {
        let dir = try TemporaryDirectory()
        let bytes = try Self.merged()
        try dir.write(bytes, to: "merged.bin")
        let result = try dir.run("yjs", "inspect", "--json", "merged.bin")
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        let report = try #require(object as? [String: Any])
        #expect(report["bytes"] as? Int == bytes.count)
        let groups = try #require(report["client_groups"] as? [[String: Any]])
        #expect(groups.map { $0["client"] as? Int } == [2, 1])
        let structs = try #require(groups[1]["structs"] as? [[String: Any]])
        #expect(structs.count == 3)
        #expect(structs[1]["origin"] as? [Int] == [1, 1])
        #expect((structs[1]["content"] as? [String: Any])?["value"] as? String == "cd")
        #expect(report["state_vector_from_update"] as? [[Int]] == [[2, 1], [1, 6]])
        #expect(report["state_vector"] as? [[Int]] == [[2, 1], [1, 6]])
        let ds = try #require(report["delete_set"] as? [[String: Any]])
        #expect(ds.first?["ranges"] as? [[Int]] == [[1, 2]])
        let roots = try #require(report["roots"] as? [[String: Any]])
        #expect(roots.map { $0["name"] as? String } == ["m", "t"])
        #expect(roots.map { $0["kind"] as? String } == ["map", "text"])
        #expect((roots[1]["json"] as? [String: Any])?["string"] as? String == "adef")
    }

    static let updateCases: [String] = ((try? Vectors.cases()) ?? []).compactMap { c in
        c["update_v1_hex"] != nil ? c["id"] as? String : nil
    }

    /// Every recorded update (all content kinds, nested types, XML, sub-documents):
    /// `--json` parses, lists the structs Yjs wrote, and reads text roots as the
    /// recorded strings.
    @Test(arguments: updateCases) func jsonCoversEveryVector(id: String) throws {
        let c = try Vectors.vectorCase(id)
        let dir = try TemporaryDirectory()
        try dir.write(Vectors.hex(try #require(c["update_v1_hex"] as? String)), to: "u.bin")
        let result = try dir.run("yjs", "inspect", "u.bin", "--json")
        #expect(result.status == 0, "\(id): \(result.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])

        let decoded = try #require(c["decoded_update"] as? [String: Any])
        let recordedGroups = try #require(decoded["client_groups"] as? [[String: Any]])
        let groups = try #require(report["client_groups"] as? [[String: Any]])
        #expect(groups.map { $0["client"] as? Int } == recordedGroups.map { $0["client"] as? Int }, "\(id)")
        #expect(groups.map { ($0["structs"] as? [Any])?.count } == recordedGroups.map { $0["num_structs"] as? Int }, "\(id)")

        let roots = try #require(report["roots"] as? [[String: Any]])
        for (name, expected) in try #require(c["json"] as? [String: Any]) {
            guard let text = (expected as? [String: Any])?["string"] as? String else { continue }
            let root = roots.first { $0["name"] as? String == name }
            #expect(root?["kind"] as? String == "text", "\(id) root \(name)")
            #expect((root?["json"] as? [String: Any])?["string"] as? String == text, "\(id) root \(name)")
        }
    }
}
