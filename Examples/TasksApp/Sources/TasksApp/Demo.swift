import Accord
import Foundation

/// What the app does with its records, on whatever client it is given: saves, typed
/// queries, an aggregate, unique keys and relationships, each checked.
enum Demo {
    static let types: [any Model.Type] = [Project.self, Task.self, Label.self, TaskLabel.self]

    static func run(in document: DocumentID) async throws {
        let now = Date(timeIntervalSince1970: 1_767_225_600)  // fixed, so runs compare
        let project = try await Project(name: "Launch", slug: "launch").save(in: document)
        let write = try await Task(title: "Write docs", priority: 2, due: now, tags: ["docs"], projectId: project.id)
            .save(in: document)
        let ship = try await Task(title: "Ship", priority: 5, due: now.addingTimeInterval(3_600), tags: ["release", "urgent"],
                                  projectId: project.id).save(in: document)
        _ = try await Task(title: "Celebrate", projectId: project.id).save(in: document)
        let urgent = try await Label(id: "urgent", name: "urgent", color: "#d00").save(in: document)
        let docs = try await Label(id: "docs", name: "docs").save(in: document)
        _ = try await TaskLabel(taskId: ship.id, labelId: urgent.id, position: 1).save(in: document)
        _ = try await TaskLabel(taskId: ship.id, labelId: docs.id, position: 2).save(in: document)

        // Defaults, auto-assigned values and dates as the generated properties show them.
        try check("default status", write.status, "open")
        try check("auto-assigned code", write.code?.utf8.count, 26)
        try check("due as stored", write.dueISO8601, "2026-01-01T00:00:00.000Z")
        try check("hand-written extension", ship.isUrgent(now: now), true)

        // Typed filter keys and the dictionary form.
        let important = try Task.query(
            [Task.Field.priority.rawValue: ["$gte": 2]], QueryOptions(sortOrder: [SortKey(Task.Field.priority.rawValue, .descending)]))
        try check("priority >= 2, highest first", important.map(\.title), ["Ship", "Write docs"])
        try check("tagged urgent", try Task.count(["tags": ["$contains": "urgent"]]), 1)
        let page = try Task.queryPaged(.all, QueryOptions(sortOrder: [SortKey("title")], limit: 2))
        try check("first page", page.data.compactMap(\.title), ["Celebrate", "Ship"])
        try check("more pages", page.hasMore, true)

        // Aggregates.
        let total = try Task.aggregate(AggregateOptions(operations: [.count, .sum("priority")]))
        try check("count and sum", total.first?.values, ["count": 3, "sum_priority": 8])

        // Unique keys: an upsert on the slug updates the project.
        let renamed = try await Project(name: "Launch v2", slug: "launch").save(in: document, upsertOn: .slug)
        try check("upsert kept the id", renamed.id, project.id)
        try check("find by slug", try Project.findByUnique(.slug("launch"))?.name, "Launch v2")
        try check("find by title in project",
                  try Task.findByUnique(.titleInProject(title: "Ship", projectId: project.id!))?.id, ship.id)

        // Relationships: traversals and includes.
        try check("project.tasks() by priority", try renamed.tasks().compactMap(\.title), ["Ship", "Write docs", "Celebrate"])
        try check("task.project()", try ship.project()?.name, "Launch v2")
        try check("ship.labels() by position", try ship.labels().data.compactMap(\.name), ["urgent", "docs"])
        let withProject = try Task.queryOne(["title": "Ship"], QueryOptions(include: [Task.includeProject(), Task.includeLabels()]))
        try check("included project", withProject?.relatedProject?.slug, "launch")
        try check("included labels", withProject?.relatedLabels.compactMap(\.name), ["urgent", "docs"])

        // Codable: a record is one JSON object.
        let json = try JSONEncoder().encode(renamed)
        try check("JSON round trip", try JSONDecoder().decode(Project.self, from: json).name, "Launch v2")
        print("TasksApp: \(try Task.count()) tasks, \(try Project.count()) project, \(try Label.count()) labels in \(document)")
    }
}
