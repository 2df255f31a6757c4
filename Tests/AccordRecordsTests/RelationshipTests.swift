import AccordCRDT
import AccordRecords
import AccordStore
import Testing

@Suite struct RelationshipTests {
    static let models = [
        ModelSchema(
            "projects", fields: [FieldSchema("name", .string)],
            relationships: [Relationship("tasks", model: "tasks", .hasMany(foreignField: "project", orderBy: SortKey("order")))]),
        ModelSchema(
            "tasks", fields: [FieldSchema("title", .string), FieldSchema("project", .id), FieldSchema("order", .number)],
            relationships: [
                Relationship("projectRef", model: "projects", .refersTo(field: "project")),
                Relationship(
                    "tags", model: "tags",
                    .hasManyThrough(joinModel: "taskTags", localField: "task", relatedField: "tag", orderBy: SortKey("position"))),
            ]),
        ModelSchema("tags", fields: [FieldSchema("label", .string)]),
        ModelSchema("taskTags", fields: [FieldSchema("task", .id), FieldSchema("tag", .id), FieldSchema("position", .number)]),
    ]

    private func fixture() throws -> (RecordIndex, Doc) {
        let index = try RecordIndex(path: ":memory:")
        try index.register(Self.models)
        let doc = Doc(clientID: 1)
        let byName = Dictionary(uniqueKeysWithValues: Self.models.map { ($0.name, $0) })
        func put(_ model: String, _ id: String, _ values: [String: RecordValue]) throws {
            try RecordLayout.write(values, id: id, model: byName[model]!, in: doc)
        }
        try put("projects", "p1", ["name": "Home"])
        try put("projects", "p2", ["name": "Empty"])
        for (index, title) in ["c", "a", "b"].enumerated() {
            try put("tasks", "t\(index)", ["title": .string(title), "project": "p1", "order": .number(Double(2 - index))])
        }
        try put("tasks", "orphan", ["title": "no project", "project": "gone"])
        for (index, label) in ["urgent", "later", "blue"].enumerated() {
            try put("tags", "g\(index)", ["label": .string(label)])
            try put("taskTags", "j\(index)", ["task": "t0", "tag": .string("g\(index)"), "position": .number(Double(3 - index))])
        }
        try index.projectAll("inbox", doc: doc)
        return (index, doc)
    }

    @Test func includeLoadsParentsChildrenAndThroughRecordsInOneCall() throws {
        let (index, _) = try fixture()
        let tasks = try index.query("tasks", options: QueryOptions(include: ["projectRef", Include("tags", limit: 2)]))
        let byID = Dictionary(uniqueKeysWithValues: tasks.map { ($0.id, $0) })
        #expect(byID["t0"]?.related["projectRef"]?.map(\.id) == ["p1"])
        #expect(byID["orphan"]?.related["projectRef"]?.isEmpty == true)
        #expect(byID["t0"]?.related["tags"]?.map(\.id) == ["g2", "g1"])  // by position, two of three
        #expect(byID["t1"]?.related["tags"]?.isEmpty == true)

        let projects = try index.query("projects", options: QueryOptions(include: [Include("tasks", limit: 2)]))
        #expect(projects.first { $0.id == "p1" }?.related["tasks"]?.map(\.id) == ["t2", "t1"])  // by order
        #expect(projects.first { $0.id == "p2" }?.related["tasks"]?.isEmpty == true)
        #expect(throws: AccordError.self) { try index.query("tasks", options: QueryOptions(include: ["nope"])) }
    }

    @Test func traversalPagesThroughJoinRecordsInOrderWhileRecordsAreAdded() throws {
        let (index, doc) = try fixture()
        let byName = Dictionary(uniqueKeysWithValues: Self.models.map { ($0.name, $0) })
        var options = QueryOptions(limit: 2)
        var seen: [String] = []
        var added = false
        while true {
            let page = try index.traverse("tasks", id: "t0", in: "inbox", relationship: "tags", options: options)
            seen += page.data.map(\.id)
            guard let cursor = page.nextCursor else { break }
            if !added {
                // A tag joined before the cursor is not visited; one after it is.
                try RecordLayout.write(["label": "new"], id: "g9", model: byName["tags"]!, in: doc)
                try RecordLayout.write(["task": "t0", "tag": "g9", "position": 99], id: "j9", model: byName["taskTags"]!, in: doc)
                try index.projectAll("inbox", doc: doc)
                added = true
            }
            options.cursor = cursor
        }
        #expect(seen == ["g2", "g1", "g0", "g9"])
        let children = try index.traverse("projects", id: "p1", in: "inbox", relationship: "tasks", options: QueryOptions(limit: 10))
        #expect(children.data.map(\.id) == ["t2", "t1", "t0"])
        #expect(throws: AccordError.self) { try index.traverse("tasks", id: "t0", in: "inbox", relationship: "projectRef") }
    }
}
