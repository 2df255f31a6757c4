import AccordCRDT
import AccordRecords
import Testing

@Suite struct TomlSchemaLoaderTests {
    static let example = """
        [models.projects.fields.name]
        type = "string"
        indexed = true

        [models.projects.relationships.tasks]
        type = "hasMany"
        model = "tasks"
        related_id_field = "project_id"
        order_by_field = "priority"
        order_direction = "desc"

        [models.tasks.fields.id]
        type = "id"
        auto_assign = true

        [models.tasks.fields.title]
        type = "string"
        default = "untitled"

        [models.tasks.fields.priority]
        type = "number"
        indexed = true
        default = 1

        [models.tasks.fields.done]
        type = "boolean"
        default = false

        [models.tasks.fields.due]
        type = "date"
        default = 2026-12-01T10:30:00.5+01:00

        [models.tasks.fields.tags]
        type = "stringset"
        max_count = 8
        default = ["inbox"]

        [models.tasks.fields.slug]
        type = "string"
        unique = true

        [models.tasks.fields.project_id]
        type = "id"

        [[models.tasks.unique_constraints]]
        name = "title_due"
        fields = ["title", "due"]

        [models.tasks.relationships.project]
        type = "refersTo"
        model = "projects"
        related_id_field = "project_id"

        [models.tasks.relationships.labels]
        type = "hasManyThrough"
        model = "labels"
        join_model = "task_labels"
        join_model_local_field = "task_id"
        join_model_related_field = "label_id"
        join_model_order_by_field = "position"

        [models.labels.fields.text]
        type = "string"

        [models.task_labels.fields.task_id]
        type = "id"
        [models.task_labels.fields.label_id]
        type = "id"
        [models.task_labels.fields.position]
        type = "number"
        """

    private func failure(_ text: String) -> AccordError? {
        do {
            _ = try TomlSchemaLoader.load(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyOptionMapsToTheModelSchema() throws {
        let models = try TomlSchemaLoader.load(Self.example)
        #expect(models.map(\.name) == ["projects", "tasks", "labels", "task_labels"])
        let tasks = try #require(models.first { $0.name == "tasks" })
        #expect(tasks.field("id") == FieldSchema("id", .id, autoAssign: true))
        #expect(tasks.field("title")?.defaultValue == "untitled")
        #expect(tasks.field("priority") == FieldSchema("priority", .number, indexed: true, defaultValue: 1))
        #expect(tasks.field("done")?.defaultValue == false)
        // A TOML offset date-time becomes the stored UTC text, milliseconds kept.
        #expect(tasks.field("due")?.defaultValue == "2026-12-01T09:30:00.500Z")
        #expect(tasks.field("tags") == FieldSchema("tags", .stringSet, defaultValue: .stringSet(["inbox"]), maxCount: 8))
        #expect(tasks.field("slug")?.unique == true)
        #expect(tasks.uniqueConstraints == [UniqueConstraint("title_due", fields: ["title", "due"])])
        #expect(tasks.relationships == [
            Relationship("project", model: "projects", .refersTo(field: "project_id")),
            Relationship(
                "labels", model: "labels",
                .hasManyThrough(joinModel: "task_labels", localField: "task_id", relatedField: "label_id", orderBy: SortKey("position"))),
        ])
        let projects = try #require(models.first { $0.name == "projects" })
        #expect(projects.relationships == [
            Relationship("tasks", model: "tasks", .hasMany(foreignField: "project_id", orderBy: SortKey("priority", .descending))),
        ])
    }

    @Test func theDocumentedSentencesNameTheBlock() {
        let reserved = failure("[models.todos.fields.type]\ntype = \"string\"\n")
        #expect(reserved?.code == .reservedFieldName)
        #expect(reserved?.message == "[models.todos.fields.type]: Field 'type' is reserved (maps to internal _type column in queries)")
        #expect(failure("[models.todos.fields._x]\ntype = \"string\"\n")?.code == .reservedFieldName)

        let uniqueSet = failure("[models.posts.fields.tags]\ntype = \"stringset\"\nunique = true\n")
        #expect(uniqueSet?.code == .uniqueOnStringSet)
        #expect(uniqueSet?.message
            == "Model \"posts\": field \"tags\" is a stringset and cannot be unique. A unique constraint applies to scalar fields only.")

        let constraint = failure("""
            [models.posts.fields.title]
            type = "string"
            [models.posts.fields.tags]
            type = "stringset"
            [[models.posts.unique_constraints]]
            name = "title_tags"
            fields = ["title", "tags"]
            """)
        #expect(constraint?.code == .uniqueOnStringSet)
        #expect(constraint?.message
            == "Model \"posts\": unique constraint \"title_tags\" names the stringset field \"tags\", which cannot be unique. A unique constraint applies to scalar fields only.")
    }

    @Test func unknownKeysTypesAndTargetsAreRefusedWithTheirPosition() {
        let unknownKey = failure("[models.todos.fields.title]\ntype = \"string\"\nindexd = true\n")
        #expect(unknownKey?.code == .invalidSchema)
        #expect(unknownKey?.details["block"] == "[models.todos.fields.title]")
        #expect(unknownKey?.details["line"] == "3")
        #expect(unknownKey?.message.contains("unknown key \"indexd\"") == true)

        let unknownType = failure("[models.todos.fields.title]\ntype = \"text\"\n")
        #expect(unknownType?.details["line"] == "2")
        #expect(unknownType?.message.contains("unknown type \"text\"") == true)

        let unknownTarget = failure("""
            [models.todos.fields.owner]
            type = "id"
            [models.todos.relationships.owner_ref]
            type = "refersTo"
            model = "users"
            related_id_field = "owner"
            """)
        #expect(unknownTarget?.code == .invalidSchema)
        #expect(unknownTarget?.message.contains("unknown model \"users\"") == true)

        let missingJoinField = failure("""
            [models.a.fields.x]
            type = "string"
            [models.j.fields.a_id]
            type = "id"
            [models.a.relationships.bs]
            type = "hasManyThrough"
            model = "a"
            join_model = "j"
            join_model_local_field = "a_id"
            join_model_related_field = "b_id"
            """)
        #expect(missingJoinField?.message.contains("unknown field \"b_id\" of model \"j\"") == true)

        let badToml = failure("[models.a.fields.x\ntype = \"string\"\n")
        #expect(badToml?.code == .invalidSchema)
        #expect(badToml?.details["line"] == "1")
        #expect(failure("[models.a.fields.x]\ntype = \"string\"\ndefault = 3\n")?.code == .invalidSchema)
        #expect(failure("[models.a.relationships.r]\ntype = \"belongsTo\"\nmodel = \"a\"\n")?.code == .invalidSchema)
        #expect(failure("[widgets]\n")?.code == .invalidSchema)
    }
}
