@testable import AccordRecords
import AccordCRDT
import AccordTesting
import AccordStore
import Testing

/// `NewRecordsUpdate` (the ingest of new records without a `Doc`) writes the update a
/// `Doc` writing the same records through `RecordBatchWrite` makes, byte for byte, and
/// the records as saved are what the document then reads.
@Suite struct NewRecordsUpdateTests {
    static let tasks = ModelSchema("tasks", fields: [
        FieldSchema("id", .id),
        FieldSchema("title", .string),
        FieldSchema("hours", .number, defaultValue: 1),
        FieldSchema("code", .string, autoAssign: true),
        FieldSchema("tags", .stringSet),
        FieldSchema("done", .boolean),
    ])
    static let notes = ModelSchema("notes", fields: [FieldSchema("id", .id), FieldSchema("text", .string)])

    /// Defaults, an auto-assigned field, a string set (and an empty one), null, a removal,
    /// text beyond ASCII, numbers past one varint byte, two models interleaved.
    static let writes: [(ModelSchema, RecordWrite)] = [
        (tasks, RecordWrite(id: "t1", values: ["title": "first", "tags": .stringSet(["b", "a"]), "done": .bool(true)])),
        (notes, RecordWrite(id: "n1", values: ["text": "ünïcode ✓ 𝄞"])),
        (tasks, RecordWrite(id: "t2", values: ["hours": .number(2.5), "title": .null], removing: ["done"])),
        (tasks, RecordWrite(id: "t3", values: ["tags": .stringSet([]), "hours": .number(-70_000)])),
        (notes, RecordWrite(id: String(repeating: "long id ", count: 40), values: ["text": .string(String(repeating: "x", count: 300))])),
    ]

    static func index() throws -> RecordIndex {
        let index = try RecordIndex(path: ":memory:")
        try index.register([tasks, notes])
        return index
    }

    @Test func theUpdateIsTheOneADocWritingTheRecordsMakes() throws {
        let index = try Self.index()
        let viaDoc = Doc(clientID: 300_000)
        var random = SplitMix64(seed: 3)
        for (model, write) in Self.writes {
            _ = try RecordBatchWrite(schema: model, index: index, document: "d")
                .apply([write], to: viaDoc, milliseconds: 1_700_000_000_000, random: &random)
        }

        let existing = Doc(clientID: 300_000)
        var update = NewRecordsUpdate(client: 300_000, startClock: 0)
        random = SplitMix64(seed: 3)
        var saved: [RecordData] = []
        for (model, write) in Self.writes {
            saved.append(try RecordBatchWrite(schema: model, index: index, document: "d")
                .add(new: write, to: &update, existing: existing, milliseconds: 1_700_000_000_000, random: &random))
        }
        #expect(update.encoded() == viaDoc.encodeStateAsUpdate())

        let applied = Doc(clientID: 9)
        try applied.applyUpdate(update.encoded())
        #expect(!applied.hasPendingUpdates)
        for model in [Self.tasks, Self.notes] {
            let read = try RecordLayout.records(of: model, in: applied)
            #expect(read.malformed.isEmpty)
            #expect(read.records == (try RecordLayout.records(of: model, in: viaDoc)).records)
        }
        for (record, (model, _)) in zip(saved, Self.writes) {
            let read = try #require(try RecordLayout.record(record.id, of: model, in: applied))
            #expect(read.values.filter { $0.value != .null } == record.values, "\(record.id)")
        }
        #expect(saved[0].values["hours"] == 1 && saved[0].values["code"] != nil)  // defaults and ULIDs for new records
    }

    /// Records added after a document's own items continue its client's clock: the
    /// update applies to that document with nothing pending.
    @Test func anUpdateContinuesTheDocumentsClock() throws {
        let index = try Self.index()
        let doc = Doc(clientID: 5)
        try RecordLayout.write(["text": "before"], id: "n0", model: Self.notes, in: doc)
        var update = NewRecordsUpdate(client: doc.clientID, startClock: doc.stateVector[doc.clientID])
        var random = SplitMix64(seed: 1)
        _ = try RecordBatchWrite(schema: Self.tasks, index: index, document: "d")
            .add(new: RecordWrite(id: "t9", values: ["title": "after"]), to: &update, existing: doc, milliseconds: 0, random: &random)
        let copy = Doc(clientID: 6)
        try copy.applyUpdate(doc.encodeStateAsUpdate())
        try copy.applyUpdate(update.encoded())
        #expect(!copy.hasPendingUpdates)
        #expect(try RecordLayout.record("n0", of: Self.notes, in: copy)?["text"] == "before")
        #expect(try RecordLayout.record("t9", of: Self.tasks, in: copy)?["title"] == "after")
    }

    /// A record the document holds is refused, and so is one it held: a deleted
    /// record's map entry stays, and a value written with no origin could land before it,
    /// so the key would read as deleted on every replica.
    @Test(arguments: [false, true]) func aRecordTheDocumentHoldsOrHeldIsRefused(deleted: Bool) throws {
        let doc = Doc(clientID: 5)
        try RecordLayout.write(["text": "before"], id: "n0", model: Self.notes, in: doc)
        if deleted { try RecordLayout.delete("n0", model: Self.notes, in: doc) }
        #expect(try doc.getMap(Self.notes.name).contains("n0") == !deleted)
        var update = NewRecordsUpdate(client: 5, startClock: doc.stateVector[5])
        var random = SplitMix64(seed: 1)
        let error = #expect(throws: AccordError.self) {
            try RecordBatchWrite(schema: Self.notes, index: try Self.index(), document: "d")
                .add(new: RecordWrite(id: "n0", values: ["text": "again"]), to: &update, existing: doc, milliseconds: 0, random: &random)
        }
        #expect(error?.code == .invalidArgument)
        #expect(update.isEmpty)
    }

    @Test func noRecordsIsTheEmptyUpdate() throws {
        let update = NewRecordsUpdate(client: 5, startClock: 0)
        #expect(update.encoded() == Doc().encodeStateAsUpdate())
    }

    /// The rows `insertNew` writes are the ones projecting the document writes.
    @Test func insertedRowsEqualProjectedOnes() throws {
        let index = try Self.index()
        let existing = Doc(clientID: 4)
        var update = NewRecordsUpdate(client: 4, startClock: 0)
        var random = SplitMix64(seed: 2)
        for (model, write) in Self.writes {
            let record = try RecordBatchWrite(schema: model, index: index, document: "ingested")
                .add(new: write, to: &update, existing: existing, milliseconds: 0, random: &random)
            #expect(try index.insertNew([record], model: model.name, document: "ingested"))
        }
        // An id written again is not new: told, and the row is the later one.
        #expect(try index.insertNew([RecordData(id: "n1", values: ["text": "first"])], model: "notes", document: "elsewhere"))
        let again = RecordData(id: "n1", values: ["text": "again"])
        #expect(try index.insertNew([again], model: "notes", document: "elsewhere") == false)
        #expect(try index.query("notes", options: QueryOptions(documents: ["elsewhere"])).map(\.record) == [again])
        #expect(try index.insertNew([again, again], model: "notes", document: "twice") == false)
        let applied = Doc(clientID: 9)
        try applied.applyUpdate(update.encoded())
        try index.projectAll("projected", doc: applied)
        for model in ["tasks", "notes"] {
            let inserted = try index.query(model, filter: .all, options: QueryOptions(documents: ["ingested"]))
            let projected = try index.query(model, filter: .all, options: QueryOptions(documents: ["projected"]))
            #expect(inserted.map(\.record) == projected.map(\.record), "\(model)")
            #expect(inserted.count == Self.writes.filter { $0.0.name == model }.count)
        }
    }
}
