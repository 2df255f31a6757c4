import AccordCRDT
import AccordRecords
import Testing

@Suite struct SchemaValidationTests {
    private func error(_ body: () throws -> Void) -> AccordError? {
        do {
            try body()
            return nil
        } catch {
            return error as? AccordError
        }
    }

    @Test func aValidModelPasses() throws {
        let tasks = ModelSchema("tasks", fields: [
            FieldSchema("id", .id, autoAssign: true),
            FieldSchema("title", .string, indexed: true),
            FieldSchema("priority", .number, defaultValue: 0),
            FieldSchema("done", .boolean, defaultValue: false),
            FieldSchema("due", .date, defaultValue: "2026-12-01T00:00:00.000Z"),
            FieldSchema("tags", .stringSet, maxCount: 8),
            FieldSchema("slug", .string, unique: true),
        ], uniqueConstraints: [UniqueConstraint("title_due", fields: ["title", "due"])])
        try ModelSchema.validate([tasks])
    }

    @Test func aFieldNamedTypeIsReservedWithTheDocumentedSentence() {
        let failure = error { try ModelSchema("tasks", fields: [FieldSchema("type", .string)]).validate() }
        #expect(failure?.code == .reservedFieldName)
        #expect(failure?.message == "Field 'type' is reserved (maps to internal _type column in queries)")
        #expect(failure?.details["model"] == "tasks")
    }

    @Test func aFieldStartingWithUnderscoreIsReserved() {
        let failure = error { try ModelSchema("tasks", fields: [FieldSchema("_rev", .string)]).validate() }
        #expect(failure?.code == .reservedFieldName)
        #expect(failure?.details["field"] == "_rev")
    }

    @Test func aUniqueStringSetIsRefusedWithTheDocumentedSentence() {
        let failure = error { try ModelSchema("posts", fields: [FieldSchema("tags", .stringSet, unique: true)]).validate() }
        #expect(failure?.code == .uniqueOnStringSet)
        #expect(failure?.message
            == "Model \"posts\": field \"tags\" is a stringset and cannot be unique. A unique constraint applies to scalar fields only.")
    }

    @Test func aUniqueConstraintOverAStringSetNamesTheConstraint() {
        let posts = ModelSchema(
            "posts", fields: [FieldSchema("slug", .string), FieldSchema("tags", .stringSet)],
            uniqueConstraints: [UniqueConstraint("slug_tags", fields: ["slug", "tags"])])
        let failure = error { try posts.validate() }
        #expect(failure?.code == .uniqueOnStringSet)
        #expect(failure?.message
            == "Model \"posts\": unique constraint \"slug_tags\" names the stringset field \"tags\", which cannot be unique. A unique constraint applies to scalar fields only.")
        #expect(failure?.details["constraint"] == "slug_tags")
    }

    @Test func duplicateNamesAreRefused() {
        let field = error { try ModelSchema("tasks", fields: [FieldSchema("a", .string), FieldSchema("a", .number)]).validate() }
        #expect(field?.code == .invalidSchema)
        #expect(field?.details["field"] == "a")
        let model = ModelSchema("tasks", fields: [])
        #expect(error { try ModelSchema.validate([model, model]) }?.code == .invalidSchema)
        let clash = ModelSchema(
            "tasks", fields: [FieldSchema("owner", .id)], relationships: [Relationship("owner", model: "tasks", .refersTo(field: "owner"))])
        #expect(error { try clash.validate() }?.code == .invalidSchema)
    }

    @Test func relationshipsMustNameKnownModelsAndFields() {
        let tasks = ModelSchema(
            "tasks", fields: [FieldSchema("project", .id)],
            relationships: [Relationship("project_ref", model: "projects", .refersTo(field: "project"))])
        let unknownModel = error { try ModelSchema.validate([tasks]) }
        #expect(unknownModel?.code == .invalidSchema)
        #expect(unknownModel?.message.contains("unknown model \"projects\"") == true)

        let projects = ModelSchema(
            "projects", fields: [FieldSchema("name", .string)],
            relationships: [Relationship("tasks", model: "tasks", .hasMany(foreignField: "projectId", orderBy: nil))])
        let unknownField = error { try ModelSchema.validate([tasks, projects]) }
        #expect(unknownField?.message.contains("unknown field \"projectId\" of model \"tasks\"") == true)

        let fixed = ModelSchema(
            "projects", fields: [FieldSchema("name", .string)],
            relationships: [Relationship("tasks", model: "tasks", .hasMany(foreignField: "project", orderBy: SortKey("project")))])
        #expect(error { try ModelSchema.validate([tasks, fixed]) } == nil)
    }

    @Test func optionsMustFitTheFieldType() {
        let badDefault = error { try ModelSchema("t", fields: [FieldSchema("n", .number, defaultValue: "x")]).validate() }
        #expect(badDefault?.code == .invalidSchema)
        #expect(badDefault?.details["field"] == "n")
        let badDate = error { try ModelSchema("t", fields: [FieldSchema("d", .date, defaultValue: "2026-12-01")]).validate() }
        #expect(badDate?.code == .invalidSchema)
        let autoNumber = error { try ModelSchema("t", fields: [FieldSchema("n", .number, autoAssign: true)]).validate() }
        #expect(autoNumber?.code == .invalidSchema)
        let maxOnString = error { try ModelSchema("t", fields: [FieldSchema("s", .string, maxCount: 3)]).validate() }
        #expect(maxOnString?.code == .invalidSchema)
        let idNotID = error { try ModelSchema("t", fields: [FieldSchema("id", .string)]).validate() }
        #expect(idNotID?.code == .invalidSchema)
    }

    @Test func namesAreIdentifiers() {
        for name in ["", "9lives", "with space", "dash-ed", "é", String(repeating: "a", count: 65)] {
            #expect(error { try ModelSchema(name, fields: []).validate() }?.code == .invalidSchema, "model \(name)")
            #expect(error { try ModelSchema("m", fields: [FieldSchema(name, .string)]).validate() }?.code == .invalidSchema)
        }
        #expect(error { try ModelSchema("Tasks_2", fields: [FieldSchema("due_at", .date)]).validate() } == nil)
    }
}
