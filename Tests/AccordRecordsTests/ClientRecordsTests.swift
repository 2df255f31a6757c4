import AccordCRDT
import AccordRecords
import AccordStore
import AccordSync
import AccordTesting
import Testing

/// Records through an `AccordClient` that never connects (pinned offline): the index
/// follows every transaction, reads are synchronous, reopening costs what changed.
@Suite(.timeLimit(.minutes(1))) struct ClientRecordsTests {
    static let tasks = ModelSchema("tasks", fields: [
        FieldSchema("id", .id, autoAssign: true),
        FieldSchema("title", .string, indexed: true),
        FieldSchema("priority", .number, indexed: true, defaultValue: 1),
        FieldSchema("done", .boolean, defaultValue: false),
        FieldSchema("slug", .string, unique: true),
    ])

    private func offlineClient(_ store: DocumentStore) async -> AccordClient {
        let client = AccordClient(serverURL: "ws://127.0.0.1:9", store: store) { "no-token" }
        await client.goOffline()
        await client.start()
        return client
    }

    @Test func aSaveIsVisibleToASynchronousReadOnTheNextLine() async throws {
        let client = await offlineClient(try DocumentStore(storage: .inMemory()))
        let records = try await client.registerModels([Self.tasks])
        try await client.create("inbox", localOnly: true)
        let saved = try await records.save("tasks", RecordWrite(values: ["title": "Buy milk"]), in: "inbox", client: client)
        #expect(try records.count("tasks") == 1)
        #expect(try records.find("tasks", id: saved.id)?["title"] == "Buy milk")
        // Defaults filled on insert, a ULID for the auto-assigned id.
        #expect(saved["priority"] == 1)
        #expect(saved["done"] == false)
        #expect(saved.id.utf8.count == 26)
        // An update writes only the fields given.
        let updated = try await records.save("tasks", RecordWrite(id: saved.id, values: ["priority": 5]), in: "inbox", client: client)
        #expect(updated["title"] == "Buy milk")
        #expect(updated["priority"] == 5)
        #expect(try records.query("tasks", filter: ["priority": ["$gte": 2]]).map(\.id) == [saved.id])
        await client.stop()
    }

    /// A save hands the records as saved to the projection instead of having them read
    /// back out of the document: the rows must be exactly what reading the document
    /// gives, for new and existing records, removed fields, nulls and a record written
    /// twice in one batch (a full reconcile then finds nothing to write).
    @Test func aBatchSaveIndexesExactlyWhatTheDocumentHolds() async throws {
        let client = await offlineClient(try DocumentStore(storage: .inMemory()))
        let records = try await client.registerModels([Self.tasks])
        try await client.create("inbox", localOnly: true)
        try await records.saveBatch("tasks", [
            RecordWrite(id: "a", values: ["title": "first", "priority": 3]),
            RecordWrite(id: "b", values: ["title": "second", "slug": "s-b"]),
        ], in: "inbox", client: client)
        try await records.saveBatch("tasks", [
            RecordWrite(id: "a", values: ["priority": 4], removing: ["title"]),
            RecordWrite(id: "b", values: ["title": .null]),
            RecordWrite(id: "c", values: ["title": "third"]),
            RecordWrite(id: "c", values: ["done": true]),
            RecordWrite(values: ["title": "auto"]),
        ], in: "inbox", client: client)
        #expect(try records.count("tasks") == 4)
        #expect(try records.find("tasks", id: "a")?["title"] == nil)
        #expect(try records.find("tasks", id: "a")?["priority"] == 4)
        #expect(try records.find("tasks", id: "b")?["title"] == nil)
        #expect(try records.find("tasks", id: "b")?["slug"] == "s-b")
        #expect(try records.find("tasks", id: "c")?["title"] == "third")
        #expect(try records.find("tasks", id: "c")?["done"] == true)
        let projected = records.index.counters.projectedRecords
        try await client.withDocument("inbox") { doc in try records.index.projectAll("inbox", doc: doc) }
        #expect(records.index.counters.projectedRecords == projected)
        await client.stop()
    }

    @Test func uniqueFieldsAreCheckedAcrossDocumentsAndBatchesAreAllOrNothing() async throws {
        let client = await offlineClient(try DocumentStore(storage: .inMemory()))
        let records = try await client.registerModels([Self.tasks])
        try await client.create("a", localOnly: true)
        try await client.create("b", localOnly: true)
        try await records.save("tasks", RecordWrite(id: "t1", values: ["slug": "milk"]), in: "a", client: client)
        do {
            try await records.save("tasks", RecordWrite(id: "t2", values: ["slug": "milk"]), in: "b", client: client)
            Issue.record("a duplicate slug was saved")
        } catch {
            #expect(error.code == .uniqueViolation)
            #expect(error.details["constraint"] == "slug")
            #expect(error.details["existing"] == "t1")
        }
        let before = try await client.withDocument("b") { $0.encodeStateAsUpdate() }
        do {
            try await records.saveBatch(
                "tasks", [RecordWrite(id: "x", values: ["slug": "s"]), RecordWrite(id: "y", values: ["slug": "s"])],
                in: "b", client: client)
            Issue.record("a batch with a duplicate slug was saved")
        } catch {
            #expect(error.code == .uniqueViolation)
        }
        #expect(try await client.withDocument("b") { $0.encodeStateAsUpdate() } == before)
        // Saving the same record again with its own slug is no violation.
        try await records.save("tasks", RecordWrite(id: "t1", values: ["slug": "milk", "title": "x"]), in: "a", client: client)
        await client.stop()
    }

    @Test func badWritesAreRefusedWithCodes() async throws {
        let client = await offlineClient(try DocumentStore(storage: .inMemory()))
        let records = try await client.registerModels([Self.tasks])
        try await client.create("inbox", localOnly: true)
        let cases: [(String, RecordWrite, DocumentID, ErrorCode)] = [
            ("tasks", RecordWrite(values: ["priority": "high"]), "inbox", .invalidArgument),
            ("tasks", RecordWrite(values: ["nope": 1]), "inbox", .invalidArgument),
            ("tasks", RecordWrite(values: ["title": "x"]), "closed", .documentNotOpen),
            ("notes", RecordWrite(values: ["title": "x"]), "inbox", .modelNotRegistered),
        ]
        for (model, write, document, code) in cases {
            do {
                try await records.save(model, write, in: document, client: client)
                Issue.record("accepted \(write)")
            } catch {
                #expect(error.code == code)
            }
        }
        #expect(try records.count("tasks") == 0)
        await client.stop()
    }

    @Test func documentsAlreadyOpenAnswerForAModelRegisteredLater() async throws {
        let client = await offlineClient(try DocumentStore(storage: .inMemory()))
        try await client.create("inbox", localOnly: true)
        try await client.withDocument("inbox") { doc in
            try RecordLayout.write(["title": "before registration"], id: "t1", model: Self.tasks, in: doc)
        }
        let records = try await client.registerModels([Self.tasks])
        #expect(try records.find("tasks", id: "t1")?["title"] == "before registration")
        // Registering the same schema again changes nothing.
        try await client.registerModels([Self.tasks])
        #expect(try records.count("tasks") == 1)
        await client.stop()
    }

    @Test func closedDocumentsAreOutOfScopeAndAnUnchangedReopenProjectsNothing() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/client.sqlite"
        do {
            let store = try DocumentStore(path: path)
            let client = await offlineClient(store)
            let records = try await client.registerModels([Self.tasks])
            try await client.create("inbox", localOnly: true)
            try await records.saveBatch(
                "tasks", (0..<3).map { RecordWrite(id: "t\($0)", values: ["title": .string("task \($0)")]) },
                in: "inbox", client: client)
            // Edits that are not records move the document on; closing records it.
            try await client.withDocument("inbox") { try $0.getText("notes").insert(0, "hello") }
            await client.close("inbox")
            #expect(try records.count("tasks") == 0)
            await client.stop()
            try store.close()
        }
        let store = try DocumentStore(path: path)
        let client = await offlineClient(store)
        let records = try await client.registerModels([Self.tasks])
        try await client.open("inbox")
        #expect(records.index.counters.projectedRecords == 0)
        #expect(try records.count("tasks") == 3)
        // A change while open is projected record by record.
        try await client.withDocument("inbox") { doc in
            try RecordLayout.write(["title": "changed"], id: "t1", model: Self.tasks, in: doc)
        }
        #expect(records.index.counters.projectedRecords == 1)
        #expect(try records.find("tasks", id: "t1")?["title"] == "changed")
        await client.stop()
        try store.close()
    }
}
