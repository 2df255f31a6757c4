@testable import AccordRecords
import AccordCRDT
import AccordTesting
import AccordStore
import Testing

/// The writer `ClientRecords.saveBatch` and `accord records put` share.
@Suite struct RecordBatchWriteTests {
    static let tasks = ModelSchema("tasks", fields: [
        FieldSchema("id", .id, autoAssign: true),
        FieldSchema("title", .string),
        FieldSchema("hours", .number, defaultValue: 1),
        FieldSchema("code", .string, autoAssign: true),
        FieldSchema("slug", .string, unique: true),
    ])

    private func writer() throws -> RecordBatchWrite {
        let index = try RecordIndex(path: ":memory:")
        try index.register([Self.tasks])
        return RecordBatchWrite(schema: Self.tasks, index: index, document: "inbox")
    }

    /// Every record is checked before the first is written: a refused batch leaves the
    /// document unchanged and sends no update.
    @Test(arguments: [
        [RecordWrite(id: "a", values: ["title": "fine"]), RecordWrite(id: "b", values: ["hours": "many"])],
        [RecordWrite(id: "a", values: ["title": "fine"]), RecordWrite(id: "b", values: ["nope": 1])],
        [RecordWrite(id: "a", values: ["title": "fine"]), RecordWrite(id: "", values: [:])],
        [RecordWrite(id: "a", values: ["slug": "s"]), RecordWrite(id: "b", values: ["slug": "s"])],
    ]) func aRefusedBatchLeavesTheDocumentUnchanged(writes: [RecordWrite]) throws {
        let writer = try writer()
        let doc = Doc(clientID: 7)
        try RecordLayout.write(["title": "before"], id: "z", model: Self.tasks, in: doc)
        let before = doc.encodeStateAsUpdate()
        var updates = 0
        let subscription = doc.onUpdate { _, _ in updates += 1 }
        defer { subscription.cancel() }
        var random = SystemRandomNumberGenerator()
        let error = #expect(throws: AccordError.self) {
            try writer.apply(writes, to: doc, milliseconds: 0, random: &random)
        }
        #expect(error?.code == .invalidArgument || error?.code == .uniqueViolation)
        if error?.code == .invalidArgument { #expect(error?.details["batchIndex"] == "1") }
        #expect(doc.encodeStateAsUpdate() == before)
        #expect(updates == 0)
    }

    @Test func newRecordsGetDefaultsAndULIDsExistingOnesOnlyTheFieldsGiven() throws {
        let writer = try writer()
        let doc = Doc(clientID: 7)
        var random = SplitMix64(seed: 1)
        let ids = try writer.apply(
            [RecordWrite(values: ["title": "new"]), RecordWrite(id: "given", values: ["hours": 4])], to: doc,
            milliseconds: 1_700_000_000_000, random: &random)
        #expect(ids.count == 2)
        #expect(ids[0].hasPrefix("01HF"))  // the time is the ULID's first 10 characters
        let first = try #require(try RecordLayout.record(ids[0], of: Self.tasks, in: doc))
        #expect(first["hours"] == 1)
        guard case .string(let code)? = first["code"] else { Issue.record("no auto-assigned code"); return }
        #expect(code.utf8.count == 26)
        _ = try writer.apply([RecordWrite(id: "given", values: ["title": "later"])], to: doc, milliseconds: 0, random: &random)
        let given = try #require(try RecordLayout.record("given", of: Self.tasks, in: doc))
        #expect(given["hours"] == 4)
        #expect(given["title"] == "later")
    }
}


/// What `write` returns is worked out from the record before and the changes, not read
/// back from the document: it must equal what a read of the document returns.
@Suite struct RecordBatchWriteSavedRecordTests {
    @Test func theSavedRecordsEqualWhatTheDocumentReadsAfterwards() throws {
        let index = try RecordIndex(path: ":memory:")
        try index.register([RecordBatchWriteTests.tasks])
        let writer = RecordBatchWrite(schema: RecordBatchWriteTests.tasks, index: index, document: "inbox")
        let doc = Doc(clientID: 7)
        var random = SystemRandomNumberGenerator()
        try RecordLayout.write(["title": "old", "slug": "s1"], id: "old", model: RecordBatchWriteTests.tasks, in: doc)
        let saved = try writer.write([
            // New, with a null: the null is not part of the record read back.
            RecordWrite(id: "new", values: ["title": "fresh", "slug": .null]),
            // Existing: one field changed, one removed, one set to null.
            RecordWrite(id: "old", values: ["hours": 3, "title": .null], removing: ["slug"]),
            // The same record twice in one batch: the second sees the first.
            RecordWrite(id: "twice", values: ["title": "first", "slug": "s2"]),
            RecordWrite(id: "twice", values: ["hours": 9]),
        ], to: doc, milliseconds: 0, random: &random)
        for (position, record) in saved.enumerated() {
            let read = try #require(try RecordLayout.record(record.id, of: RecordBatchWriteTests.tasks, in: doc))
            let expected = read.values.filter { $0.value != .null }
            // The first write of "twice" returns the record as it stood after it.
            if position == 2 {
                #expect(record.values["title"] == "first")
                #expect(record.values["hours"] == 1)
                continue
            }
            #expect(record.values == expected, "record \(position) (\(record.id))")
        }
        #expect(saved[1].values["title"] == nil)
        #expect(saved[1].values["slug"] == nil)
        #expect(saved[3].values["hours"] == 9)
        #expect(saved[3].values["slug"] == "s2")
    }
}
