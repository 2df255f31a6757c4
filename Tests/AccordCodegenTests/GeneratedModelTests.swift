import AccordCRDT
import AccordRecords
import AccordStore
import AccordSync
import Foundation
import Testing

/// The committed generated models (Generated/, the example schema's output) compiled
/// here and used against an offline client: typed fields and defaults, dates, sets,
/// typed filter keys, unique keys, relationships and includes, Codable, subscriptions.
/// Serialized: the statics bind to the first client that registers the models.
@Suite(.serialized, .timeLimit(.minutes(1))) struct GeneratedModelTests {
    static let types: [any Model.Type] = [Project.self, Task.self, Label.self, TaskLabel.self]

    private func client() async throws -> AccordClient {
        let client = AccordClient(serverURL: "ws://127.0.0.1:9", store: DocumentStore(storage: .inMemory())) { "t" }
        await client.goOffline()
        await client.start()
        try await client.create("inbox", localOnly: true)
        try await client.registerModels(Self.types)
        return client
    }

    @Test func typedFieldsDefaultsDatesAndSetsRoundTripThroughASave() async throws {
        let client = try await client()
        var task = Task(title: "Write docs", due: Date(timeIntervalSince1970: 1_767_312_000), tags: ["docs", "urgent"])
        // Defaults read through before the first save, and are what the save writes.
        #expect(task.priority == 1)
        #expect(task.status == "open")
        #expect(task.code == nil)
        task = try await task.save(in: "inbox")
        #expect(task.id?.utf8.count == 26)
        #expect(task.code?.utf8.count == 26)  // auto-assigned
        #expect(task.storage["priority"] == 1)
        #expect(task.storage["done"] == false)
        #expect(task.createdAtISO8601 == "2026-01-01T00:00:00.000Z")
        #expect(task.createdAt == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(task.dueISO8601 == "2026-01-02T00:00:00.000Z")
        #expect(task.tags == ["docs", "urgent"])

        // Typed filter keys next to the dictionary form.
        let byField = try Task.query([Task.Field.due.rawValue: ["$gte": "2026-01-01T00:00:00.000Z"]])
        #expect(byField.map(\.id) == [task.id])
        #expect(try Task.count([Task.Field.tags.rawValue: ["$contains": "urgent"]]) == 1)
        #expect(try Task.count(["done": true]) == 0)

        var edited = try #require(try Task.find(task.id!))
        edited.done = true
        edited.tags.insert("shipped")
        #expect(edited.storage.write.values.keys.sorted() == ["done", "tags"])
        edited = try await edited.save(in: "inbox")
        #expect(try Task.queryOne([Task.Field.done.rawValue: true])?.tags == ["docs", "shipped", "urgent"])
        await client.stop()
    }

    @Test func uniqueKeysAreTyped() async throws {
        let client = try await client()
        let project = try await Project(name: "Accord", slug: "accord").save(in: "inbox")
        let again = try await Project(name: "Accord 2", slug: "accord").save(in: "inbox", upsertOn: .slug)
        #expect(again.id == project.id)
        #expect(try Project.count() == 1)
        #expect(try Project.findByUnique(.slug("accord"))?.name == "Accord 2")

        let task = try await Task(title: "Plan", projectId: project.id).save(in: "inbox")
        var replacement = Task(title: "Plan", priority: 5, projectId: project.id)
        replacement = try await replacement.upsertByUnique(.titleInProject, in: "inbox")
        #expect(replacement.id == task.id)
        #expect(try Task.findByUnique(.titleInProject(title: "Plan", projectId: project.id!))?.priority == 5)
        #expect(try Task.findByUnique(.code(task.code!))?.id == task.id)
        do {
            _ = try await Task(title: "Other", projectId: project.id).upsertByUnique(.titleInProject, in: "inbox", mode: .mustExist)
            Issue.record("mustExist inserted")
        } catch {
            #expect(error.code == .recordNotFound)
        }
        await client.stop()
    }

    @Test func relationshipsTraverseInTheirOrderAndIncludesLoadWithQueries() async throws {
        let client = try await client()
        let project = try await Project(name: "Home", slug: "home").save(in: "inbox")
        let low = try await Task(title: "Low", priority: 1, projectId: project.id).save(in: "inbox")
        let high = try await Task(title: "High", priority: 9, projectId: project.id).save(in: "inbox")
        let red = try await Label(id: "red", name: "red", color: "#f00").save(in: "inbox")
        let blue = try await Label(id: "blue", name: "blue").save(in: "inbox")
        _ = try await TaskLabel(taskId: high.id, labelId: red.id, position: 2).save(in: "inbox")
        _ = try await TaskLabel(taskId: high.id, labelId: blue.id, position: 1).save(in: "inbox")

        // hasMany, ordered by priority descending; refersTo; hasManyThrough paged.
        #expect(try project.tasks().map(\.title) == ["High", "Low"])
        #expect(try low.project()?.id == project.id)
        let first = try high.labels(limit: 1)
        #expect(first.data.map(\.name) == ["blue"])
        #expect(first.hasMore)
        let second = try high.labels(limit: 1, afterCursor: first.nextCursor)
        #expect(second.data.map(\.name) == ["red"])
        #expect(try high.labels().data.map(\.id) == ["blue", "red"])
        #expect(try Task(title: "unsaved").project() == nil)

        // Includes, read back through related<Name>.
        let projects = try Project.query(.all, QueryOptions(include: [Project.includeTasks(limit: 1)]))
        #expect(projects.first?.relatedTasks.map(\.title) == ["High"])
        let tasks = try Task.query(
            [Task.Field.title.rawValue: "High"], QueryOptions(include: [Task.includeProject(), Task.includeLabels()]))
        #expect(tasks.first?.relatedProject?.name == "Home")
        #expect(tasks.first?.relatedLabels.map(\.name) == ["blue", "red"])
        #expect(low.relatedProject == nil)
        await client.stop()
    }

    @Test func codableWritesTheRecordAsOneObjectAndReadsItBack() throws {
        var task = Task(id: "t1", title: "Codable", due: Date(timeIntervalSince1970: 0), tags: ["b", "a"], projectId: "p1")
        task.done = true
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(task), as: UTF8.self)
        #expect(json == #"{"done":true,"due":"1970-01-01T00:00:00.000Z","id":"t1","projectId":"p1","tags":["a","b"],"title":"Codable"}"#)
        let decoded = try JSONDecoder().decode(Task.self, from: Data(json.utf8))
        #expect(decoded.storage.values == task.storage.values)
        #expect(decoded.id == "t1")
        #expect(decoded.isNewForCodable)
    }

    @Test func subscribersHearSavesOfTheirModel() async throws {
        let client = try await client()
        let heard = Heard()
        let subscription = try Task.subscribe { heard.add($0) }
        let saved = try await Task(title: "Heard").save(in: "inbox")
        _ = try await Project(name: "Not heard", slug: "nh").save(in: "inbox")
        for _ in 0..<200 where heard.changes.isEmpty { try await _Concurrency.Task.sleep(nanoseconds: 10_000_000) }
        subscription.cancel()
        #expect(heard.changes.map(\.model) == ["tasks"])
        #expect(heard.changes.first?.ids == [saved.id!])
        await client.stop()
    }
}

extension Task {
    /// A decoded record is new: every field it has counts as changed.
    var isNewForCodable: Bool { storage.isNew && storage.changedFields == Set(storage.values.keys) }
}

/// Changes a subscription heard, from the client's queue.
final class Heard: @unchecked Sendable {
    // Invariant: `list` is touched only under `lock`.
    private let lock = NSLock()
    private var list: [RecordChange] = []
    func add(_ change: RecordChange) { lock.lock(); list.append(change); lock.unlock() }
    var changes: [RecordChange] { lock.lock(); defer { lock.unlock() }; return list }
}
