import AccordCRDT
import AccordRecords
import Foundation
import Testing

@Suite struct RecordLayoutTests {
    static let tasks = ModelSchema("tasks", fields: [
        FieldSchema("title", .string),
        FieldSchema("priority", .number),
        FieldSchema("done", .boolean),
        FieldSchema("due", .date),
        FieldSchema("tags", .stringSet, maxCount: 3),
    ])

    private func sync(_ a: Doc, _ b: Doc) throws {
        try b.applyUpdate(a.encodeStateAsUpdate(from: b.encodeStateVector()))
        try a.applyUpdate(b.encodeStateAsUpdate(from: a.encodeStateVector()))
    }

    @Test func aRecordRoundTripsThroughTheDocument() throws {
        let doc = Doc(clientID: 1)
        try RecordLayout.write(
            ["title": "Buy milk", "priority": 2, "done": false, "due": "2026-12-01T09:30:00.000Z", "tags": .stringSet(["home", "é"])],
            id: "t1", model: Self.tasks, in: doc)
        let record = try #require(try RecordLayout.record("t1", of: Self.tasks, in: doc))
        #expect(record.values["title"] == "Buy milk")
        #expect(record.values["priority"] == 2)
        #expect(record.values["tags"] == .stringSet(["home", "é"]))
        #expect(record["id"] == "t1")
        // The layout a Yjs peer sees: tasks → t1 → fields, tags → member: true.
        let json = try doc.getMap("tasks").json
        #expect(json == [
            "t1": ["done": false, "due": "2026-12-01T09:30:00.000Z", "priority": 2, "tags": ["home": true, "é": true], "title": "Buy milk"],
        ])
    }

    @Test func writesOfDifferentFieldsOnTwoReplicasBothSurvive() throws {
        let a = Doc(clientID: 1)
        let b = Doc(clientID: 2)
        try RecordLayout.write(["title": "Draft", "priority": 1], id: "t1", model: Self.tasks, in: a)
        try sync(a, b)
        try RecordLayout.write(["title": "Final"], id: "t1", model: Self.tasks, in: a)
        try RecordLayout.write(["priority": 5], id: "t1", model: Self.tasks, in: b)
        try sync(a, b)
        for doc in [a, b] {
            let record = try #require(try RecordLayout.record("t1", of: Self.tasks, in: doc))
            #expect(record.values["title"] == "Final")
            #expect(record.values["priority"] == 5)
        }
    }

    @Test func concurrentWritesOfOneFieldPickTheSameWinnerEverywhere() throws {
        let a = Doc(clientID: 1)
        let b = Doc(clientID: 2)
        try RecordLayout.write(["title": "x"], id: "t1", model: Self.tasks, in: a)
        try sync(a, b)
        try RecordLayout.write(["title": "from a"], id: "t1", model: Self.tasks, in: a)
        try RecordLayout.write(["title": "from b"], id: "t1", model: Self.tasks, in: b)
        try sync(a, b)
        let winnerA = try RecordLayout.record("t1", of: Self.tasks, in: a)?.values["title"]
        let winnerB = try RecordLayout.record("t1", of: Self.tasks, in: b)?.values["title"]
        #expect(winnerA == winnerB)
        #expect(winnerA == "from b")  // Yjs's map rule: the higher client id wins
    }

    @Test func stringSetMembersAddedAndRemovedConcurrentlyMerge() throws {
        let a = Doc(clientID: 1)
        let b = Doc(clientID: 2)
        try RecordLayout.write(["tags": .stringSet(["x", "y"])], id: "t1", model: Self.tasks, in: a)
        try sync(a, b)
        try RecordLayout.write(["tags": .stringSet(["x", "y", "z"])], id: "t1", model: Self.tasks, in: a)  // add z
        try RecordLayout.write(["tags": .stringSet(["y"])], id: "t1", model: Self.tasks, in: b)  // remove x
        try sync(a, b)
        for doc in [a, b] {
            #expect(try RecordLayout.record("t1", of: Self.tasks, in: doc)?.values["tags"] == .stringSet(["y", "z"]))
        }
    }

    @Test func deleteAgainstEditOfTheSameRecordConvergesToDeleted() throws {
        let a = Doc(clientID: 1)
        let b = Doc(clientID: 2)
        try RecordLayout.write(["title": "x"], id: "t1", model: Self.tasks, in: a)
        try sync(a, b)
        try RecordLayout.delete("t1", model: Self.tasks, in: a)
        try RecordLayout.write(["title": "edited"], id: "t1", model: Self.tasks, in: b)
        try sync(a, b)
        // The edit wrote into the record's map, which the delete removed on both.
        #expect(try RecordLayout.record("t1", of: Self.tasks, in: a) == nil)
        #expect(try RecordLayout.record("t1", of: Self.tasks, in: b) == nil)
    }

    @Test func removingAFieldMakesItAbsentAndNullStoresNull() throws {
        let doc = Doc(clientID: 1)
        try RecordLayout.write(["title": "x", "priority": 1], id: "t1", model: Self.tasks, in: doc)
        try RecordLayout.write(["priority": nil], removing: ["title"], id: "t1", model: Self.tasks, in: doc)
        let record = try #require(try RecordLayout.record("t1", of: Self.tasks, in: doc))
        #expect(record.values["title"] == nil)
        #expect(record.values["priority"] == .null)
    }

    @Test func aRefusedWriteChangesNothing() throws {
        let doc = Doc(clientID: 1)
        try RecordLayout.write(["title": "x"], id: "t1", model: Self.tasks, in: doc)
        let before = doc.encodeStateAsUpdate()
        let refusals: [[String: RecordValue]] = [
            ["title": "y", "priority": "high"],
            ["title": "y", "due": "tomorrow"],
            ["title": "y", "tags": .stringSet(["a", "b", "c", "d"])],
            ["title": "y", "nope": 1],
            ["priority": .number(.infinity)],
        ]
        for changes in refusals {
            #expect(throws: AccordError.self) { try RecordLayout.write(changes, id: "t1", model: Self.tasks, in: doc) }
        }
        #expect(throws: AccordError.self) { try RecordLayout.write(["title": "y"], id: "", model: Self.tasks, in: doc) }
        #expect(doc.encodeStateAsUpdate() == before)
    }

    @Test func recordsThatBreakTheSchemaAreSkippedAndNamed() throws {
        let doc = Doc(clientID: 1)
        try RecordLayout.write(["title": "fine"], id: "good", model: Self.tasks, in: doc)
        let root = try doc.getMap("tasks")
        try doc.transact {
            try root.set("scalar", "not a record")
            let wrongType = try root.setMap("wrong")
            try wrongType.set("priority", "high")
            let mapForString = try root.setMap("nested")
            try mapForString.setMap("title")
            let extra = try root.setMap("extra")
            try extra.set("title", "kept")
            try extra.set("unknownField", 1)  // fields the schema does not name are ignored
        }
        let read = try RecordLayout.records(of: Self.tasks, in: doc)
        #expect(read.records.map(\.id) == ["extra", "good"])
        #expect(read.malformed.sorted() == ["nested", "scalar", "wrong"])
        #expect(throws: AccordError.self) { try RecordLayout.record("wrong", of: Self.tasks, in: doc) }
    }

    /// A record written by pycrdt (Yrs) in the documented layout reads as a record.
    @Test func aRecordWrittenByAYjsPeerReads() throws {
        let script = """
            from pycrdt import Doc, Map
            doc = Doc(client_id=77)
            tasks = doc.get("tasks", type=Map)
            tasks["p1"] = Map({"title": "From Python", "priority": 3, "done": True, "tags": Map({"py": True, "gone": False})})
            print(doc.get_update().hex())
            """
        let update = try Self.runPython(script)
        let doc = Doc(clientID: 1)
        try doc.applyUpdate(update)
        let record = try #require(try RecordLayout.record("p1", of: Self.tasks, in: doc))
        #expect(record.values["title"] == "From Python")
        #expect(record.values["priority"] == 3)
        #expect(record.values["done"] == true)
        #expect(record.values["tags"] == .stringSet(["py"]))
        // And it answers queries once projected.
        let index = try RecordIndex(path: ":memory:")
        try index.register([Self.tasks])
        try index.projectAll("shared", doc: doc)
        #expect(try index.query("tasks", filter: ["tags": ["$contains": "py"], "done": true]).map(\.id) == ["p1"])
    }

    static func runPython(_ script: String) throws -> [UInt8] {
        guard let python = ProcessInfo.processInfo.environment["ACCORD_PYTHON"] else {
            throw AccordError(.invalidArgument, "ACCORD_PYTHON is not set: run the tests with `make test` (scripts/test.sh)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let hex = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, hex.count % 2 == 0 else {
            throw AccordError(.ioError, "pycrdt script failed with status \(process.terminationStatus)")
        }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { throw AccordError(.ioError, "not hex: \(hex.prefix(40))") }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
