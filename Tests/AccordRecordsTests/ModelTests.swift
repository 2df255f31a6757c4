import AccordCRDT
import AccordRecords
import AccordStore
import AccordSync
import Foundation
import Testing

/// A hand-written model, the shape codegen will generate.
struct Todo: Model {
    static let schema = ModelSchema("todos", fields: [
        FieldSchema("id", .id, autoAssign: true),
        FieldSchema("title", .string, indexed: true),
        FieldSchema("priority", .number, indexed: true, defaultValue: 0),
        FieldSchema("due", .date),
        FieldSchema("tags", .stringSet),
        FieldSchema("slug", .string, unique: true),
    ])
    var storage: RecordStorage
    init(storage: RecordStorage) { self.storage = storage }
    init(title: String) {
        storage = RecordStorage()
        self.title = title
    }

    var title: String { get { storage.string("title") ?? "" } set { storage.set("title", newValue) } }
    var priority: Double { get { storage.number("priority") ?? 0 } set { storage.set("priority", newValue) } }
    var due: Date? { get { storage.date("due") } set { storage.set("due", newValue) } }
    var tags: StringSet { get { storage.stringSet("tags") } set { storage.set("tags", newValue) } }
    var slug: String? { get { storage.string("slug") } set { storage.set("slug", newValue) } }
}

/// A model only the statics test registers, so its statics bind to that test's client.
struct Note: Model {
    static let schema = ModelSchema("notes", fields: [FieldSchema("id", .id, autoAssign: true), FieldSchema("text", .string)])
    var storage: RecordStorage
    init(storage: RecordStorage) { self.storage = storage }
    var text: String { get { storage.string("text") ?? "" } set { storage.set("text", newValue) } }
}

/// Models nobody registers.
struct Unregistered: Model {
    static let schema = ModelSchema("unregistered", fields: [])
    var storage: RecordStorage
    init(storage: RecordStorage) { self.storage = storage }
}

@Suite(.serialized, .timeLimit(.minutes(1))) struct ModelTests {
    private func client() async throws -> AccordClient {
        let client = AccordClient(serverURL: "ws://127.0.0.1:9", store: try DocumentStore(storage: .inMemory())) { "t" }
        await client.goOffline()
        await client.start()
        try await client.create("inbox", localOnly: true)
        return client
    }

    @Test func typedModelsSaveAndQueryThroughTheirClient() async throws {
        let client = try await client()
        try await client.registerModels([Todo.self])
        let typed = try client.records(Todo.self)
        var todo = Todo(title: "Buy milk")
        todo.priority = 2
        todo.due = Date(timeIntervalSince1970: 1_764_581_400.5)
        todo.tags = ["home", "shop"]
        let saved = try await typed.save(todo, in: "inbox")
        #expect(saved.id?.utf8.count == 26)
        #expect(saved.document == "inbox")
        #expect(saved.title == "Buy milk")
        #expect(saved.due == Date(timeIntervalSince1970: 1_764_581_400.5))
        #expect(saved.tags == ["home", "shop"])
        #expect(try typed.query(["priority": ["$gte": 2]]).map(\.title) == ["Buy milk"])
        #expect(try typed.count() == 1)

        // Only the assigned field is written on update; discardChanges reverts.
        var edited = try #require(try typed.find(saved.id!))
        edited.priority = 9
        edited.title = "changed"
        edited.discardChanges()
        #expect(edited.title == "Buy milk")
        edited.priority = 5
        #expect(edited.storage.write.values.keys.sorted() == ["priority"])
        let updated = try await typed.save(edited, in: "inbox")
        #expect(updated.priority == 5)
        #expect(updated.title == "Buy milk")
        await client.stop()
    }

    @Test func upsertsMatchByUniqueKeyAndFindByUniqueIsDeterministic() async throws {
        let client = try await client()
        let records = try await client.registerModels([Todo.self])
        let typed = try client.records(Todo.self)
        var first = Todo(title: "a")
        first.slug = "milk"
        let saved = try await typed.save(first, in: "inbox", upsertOn: "slug")
        var again = Todo(title: "b")
        again.slug = "milk"
        let upserted = try await typed.save(again, in: "inbox", upsertOn: "slug")
        #expect(upserted.id == saved.id)
        #expect(upserted.title == "b")
        #expect(try typed.count() == 1)
        #expect(try typed.findByUnique("slug", ["slug": "milk"])?.id == saved.id)

        do {
            try await records.upsertByUnique("todos", constraint: "slug", RecordWrite(values: ["slug": "eggs"]), in: "inbox", mode: .mustExist)
            Issue.record("mustExist inserted")
        } catch {
            #expect(error.code == .recordNotFound)
        }
        do {
            try await records.upsertByUnique("todos", constraint: "slug", RecordWrite(values: ["slug": "milk"]), in: "inbox", mode: .mustNotExist)
            Issue.record("mustNotExist updated")
        } catch {
            #expect(error.code == .uniqueViolation)
        }
        await client.stop()
    }

    @Test func twoReplicasCreatingTheSameKeyOfflineKeepBothAndAgreeOnFindByUnique() async throws {
        let schema = Todo.schema
        let a = Doc(clientID: 1)
        let b = Doc(clientID: 2)
        try RecordLayout.write(["slug": "milk", "title": "from a"], id: "zzz", model: schema, in: a)
        try RecordLayout.write(["slug": "milk", "title": "from b"], id: "aaa", model: schema, in: b)
        try a.applyUpdate(b.encodeStateAsUpdate())
        try b.applyUpdate(a.encodeStateAsUpdate())
        var winners: [String?] = []
        for doc in [a, b] {
            let index = try RecordIndex(path: ":memory:")
            try index.register([schema])
            try index.projectAll("inbox", doc: doc)
            #expect(try index.count("todos", filter: ["slug": "milk"]) == 2)
            winners.append(try index.query("todos", filter: ["slug": "milk"], options: QueryOptions(limit: 1)).first?.id)
        }
        #expect(winners == ["aaa", "aaa"])
    }

    @Test func dynamicRecordsReadAndWriteByFieldName() async throws {
        let client = try await client()
        let records = try await client.registerModels([Todo.schema])
        var record = DynamicRecord(model: "todos")
        record["title"] = "dynamic"
        let saved = try await records.save(record, in: "inbox")
        #expect(saved["title"] == "dynamic")
        #expect(saved["priority"] == 0)
        await client.stop()
    }

    @Test func staticsReadAndWriteThroughTheClientTheModelIsRegisteredWith() async throws {
        let client = try await client()
        try await client.registerModels([Note.self])
        var note = Note(storage: RecordStorage())
        note.text = "hello"
        let saved = try await note.save(in: "inbox")
        #expect(try Note.find(saved.id!)?.text == "hello")
        #expect(try Note.query(["text": ["$containsText": "ELL"]]).count == 1)
        #expect(try Note.queryOne()?.id == saved.id)
        #expect(try Note.count() == 1)
        #expect(try Note.queryPaged(.all, QueryOptions(limit: 1)).hasMore == false)
        #expect(try Note.aggregate(AggregateOptions()) == [AggregateRow(["value": 1])])
        try await saved.delete(in: "inbox")
        #expect(try Note.count() == 0)
        await client.stop()
    }

    @Test func aModelRegisteredWithNoClientThrowsModelNotRegistered() async throws {
        do {
            _ = try Unregistered.findAll()
            Issue.record("statics of an unregistered model answered")
        } catch {
            #expect(error.code == .modelNotRegistered)
        }
        let client = try await client()
        do {
            _ = try client.records(Unregistered.self)
            Issue.record("records(Unregistered.self) answered")
        } catch {
            #expect(error.code == .modelNotRegistered)
        }
        await client.stop()
    }
}
