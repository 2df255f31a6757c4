import AccordCRDT
@testable import AccordRecords
import Testing

/// Schema files: every option of a ``ModelSchema`` survives JSON and back, and a bad
/// file is refused with a code and the path of the fault.
@Suite struct ModelSchemaJSONTests {
    /// Every option at least once, every field type, every relationship kind.
    static let projects = ModelSchema("projects", fields: [FieldSchema("name", .string)])
    static let links = ModelSchema("links", fields: [FieldSchema("taskID", .string), FieldSchema("tagID", .string)])
    static let tags = ModelSchema("tags", fields: [FieldSchema("label", .string, indexed: true)])
    static let tasks = ModelSchema(
        "tasks",
        fields: [
            FieldSchema("id", .id, autoAssign: true),
            FieldSchema("title", .string, indexed: true, defaultValue: "untitled"),
            FieldSchema("code", .string, unique: true, autoAssign: true),
            FieldSchema("priority", .number, indexed: true, defaultValue: 1.5),
            FieldSchema("count", .number, defaultValue: 3),
            FieldSchema("done", .boolean, defaultValue: false),
            FieldSchema("due", .date, defaultValue: "2026-12-01T00:00:00.000Z"),
            FieldSchema("note", .string, defaultValue: .null),
            FieldSchema("tags", .stringSet, defaultValue: .stringSet(["b", "a"]), maxCount: 8),
            FieldSchema("projectID", .string),
        ],
        uniqueConstraints: [UniqueConstraint("title_due", fields: ["title", "due"])],
        relationships: [
            Relationship("project", model: "projects", .refersTo(field: "projectID")),
            Relationship("children", model: "tasks", .hasMany(foreignField: "projectID", orderBy: SortKey("priority", .descending))),
            Relationship("siblings", model: "tasks", .hasMany(foreignField: "projectID", orderBy: nil)),
            Relationship(
                "labels", model: "tags",
                .hasManyThrough(joinModel: "links", localField: "taskID", relatedField: "tagID", orderBy: SortKey("tagID"))),
            Relationship("links", model: "tags", .hasManyThrough(joinModel: "links", localField: "taskID", relatedField: "tagID", orderBy: nil)),
        ])
    static let all = [tasks, projects, links, tags]

    @Test func everyOptionRoundTripsThroughJSONText() throws {
        try ModelSchema.validate(Self.all)
        for model in Self.all {
            let text = model.json.jsonText
            let back = try ModelSchema(json: AnyValue(jsonText: text))
            #expect(back == model, "\(text)")
            #expect(back.fingerprint == model.fingerprint)
        }
    }

    @Test func theJSONIsTheDocumentedShape() throws {
        let tasks = Self.tasks.json
        let fields = try #require(tasks.objectValue?["fields"]?.arrayValue)
        #expect(fields[0].jsonText == #"{"name":"id","type":"id","autoAssign":true}"#)
        #expect(fields[2].jsonText == #"{"name":"code","type":"string","unique":true,"autoAssign":true}"#)
        #expect(fields[3].jsonText == #"{"name":"priority","type":"number","indexed":true,"default":1.5}"#)
        #expect(fields[7].jsonText == #"{"name":"note","type":"string","default":null}"#)
        #expect(fields[8].jsonText == #"{"name":"tags","type":"stringset","default":["a","b"],"maxCount":8}"#)
        let relationships = try #require(tasks.objectValue?["relationships"]?.arrayValue)
        #expect(relationships[0].jsonText == #"{"name":"project","model":"projects","kind":"refersTo","field":"projectID"}"#)
        #expect(relationships[1].jsonText
            == #"{"name":"children","model":"tasks","kind":"hasMany","foreignField":"projectID","orderBy":{"field":"priority","direction":-1}}"#)
        #expect(relationships[3].jsonText
            == #"{"name":"labels","model":"tags","kind":"hasManyThrough","joinModel":"links","localField":"taskID","relatedField":"tagID","orderBy":{"field":"tagID","direction":1}}"#)
        #expect(tasks.objectValue?["uniqueConstraints"]?.jsonText == #"[{"name":"title_due","fields":["title","due"]}]"#)
        // A model with nothing but fields writes nothing else.
        #expect(Self.projects.json.jsonText == #"{"name":"projects","fields":[{"name":"name","type":"string"}]}"#)
    }

    @Test func aSchemaFileHoldsOneModelOrAList() throws {
        let one = try ModelSchema.models(json: Self.projects.json)
        #expect(one == [Self.projects])
        let list = try ModelSchema.models(json: .object(OrderedObject([("models", .array(Self.all.map(\.json)))])))
        #expect(list == Self.all)
        // A direction may be left out: ascending.
        let text = #"{"name":"a","fields":[{"name":"p","type":"string"}],"relationships":[{"name":"kids","model":"a","kind":"hasMany","foreignField":"p","orderBy":{"field":"p"}}]}"#
        let parsed = try ModelSchema.models(json: AnyValue(jsonText: text))
        #expect(parsed[0].relationships[0].kind == .hasMany(foreignField: "p", orderBy: SortKey("p", .ascending)))
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        var json: String
        var code: ErrorCode
        var path: String?
        var message: String
        var testDescription: String { json }
    }

    static let bad: [Bad] = [
        Bad(json: #"[]"#, code: .invalidSchema, path: "$", message: "Schema: expected an object."),
        Bad(json: #"{"fields":[]}"#, code: .invalidSchema, path: "name", message: "Schema: name: missing (a string is required)."),
        Bad(json: #"{"name":"t"}"#, code: .invalidSchema, path: "fields", message: "Model \"t\": fields: missing (an array is required)."),
        Bad(json: #"{"name":"t","fields":{}}"#, code: .invalidSchema, path: "fields", message: "Model \"t\": fields: expected an array."),
        Bad(json: #"{"name":"t","fields":[],"indexes":[]}"#, code: .invalidSchema, path: "indexes",
            message: "Model \"t\": indexes: unknown key (expected name, fields, uniqueConstraints, relationships)."),
        Bad(json: #"{"name":"t","fields":["title"]}"#, code: .invalidSchema, path: "fields[0]", message: "Model \"t\": fields[0]: expected an object."),
        Bad(json: #"{"name":"t","fields":[{"name":"a","type":"text"}]}"#, code: .invalidSchema, path: "fields[0].type",
            message: "Model \"t\": fields[0].type: unknown type \"text\" (expected one of id, string, number, boolean, date, stringset)."),
        Bad(json: #"{"name":"t","fields":[{"name":"a"}]}"#, code: .invalidSchema, path: "fields[0].type",
            message: "Model \"t\": fields[0].type: missing (a string is required)."),
        Bad(json: #"{"name":"t","fields":[{"name":"a","type":"string","indexed":"yes"}]}"#, code: .invalidSchema,
            path: "fields[0].indexed", message: "Model \"t\": fields[0].indexed: expected true or false."),
        Bad(json: #"{"name":"t","fields":[{"name":"a","type":"stringset","maxCount":2.5}]}"#, code: .invalidSchema,
            path: "fields[0].maxCount", message: "Model \"t\": fields[0].maxCount: expected a whole number."),
        Bad(json: #"{"name":"t","fields":[{"name":"a","type":"string","default":{"x":1}}]}"#, code: .invalidSchema,
            path: "fields[0].default", message: "Model \"t\": fields[0].default: expected a number, string, boolean, null or array of strings."),
        Bad(json: #"{"name":"t","fields":[],"uniqueConstraints":[{"name":"u","fields":[1]}]}"#, code: .invalidSchema,
            path: "uniqueConstraints[0].fields", message: "Model \"t\": uniqueConstraints[0].fields: expected an array of field names."),
        Bad(json: #"{"name":"t","fields":[],"relationships":[{"name":"r","model":"t","kind":"belongsTo"}]}"#, code: .invalidSchema,
            path: "relationships[0].kind",
            message: "Model \"t\": relationships[0].kind: unknown kind \"belongsTo\" (expected refersTo, hasMany or hasManyThrough)."),
        Bad(json: #"{"name":"t","fields":[],"relationships":[{"name":"r","model":"t","kind":"refersTo","foreignField":"x"}]}"#,
            code: .invalidSchema, path: "relationships[0].foreignField",
            message: "Model \"t\": relationships[0].foreignField: unknown key (expected name, model, kind, field)."),
        Bad(json: #"{"name":"t","fields":[{"name":"p","type":"string"}],"relationships":[{"name":"r","model":"t","kind":"hasMany","foreignField":"p","orderBy":{"field":"p","direction":0}}]}"#,
            code: .invalidSchema, path: "relationships[0].orderBy.direction",
            message: "Model \"t\": relationships[0].orderBy.direction: expected 1 or -1."),
        Bad(json: #"{"models":[]}"#, code: .invalidSchema, path: "models", message: "Schema: models: expected a non-empty array of models."),
        Bad(json: #"{"models":[{"name":"a","fields":[]}],"name":"b"}"#, code: .invalidSchema, path: "name",
            message: "Schema: name: unknown key (expected models)."),
        Bad(json: #"{"models":[{"name":"a","fields":[]},{"name":"b","fields":[{"name":"x","type":"nope"}]}]}"#, code: .invalidSchema,
            path: "models[1].fields[0].type",
            message: "Model \"b\": models[1].fields[0].type: unknown type \"nope\" (expected one of id, string, number, boolean, date, stringset)."),
        // The rules of a schema, checked once the shape is right, keep their own codes.
        Bad(json: #"{"name":"t","fields":[{"name":"n","type":"number","default":"one"}]}"#, code: .invalidSchema, path: nil,
            message: "Model \"t\": the default of field \"n\" is not a valid number: Model \"t\": field \"n\" (number) cannot hold the string \"one\"."),
        Bad(json: #"{"name":"t","fields":[{"name":"type","type":"string"}]}"#, code: .reservedFieldName, path: nil,
            message: "Field 'type' is reserved (maps to internal _type column in queries)"),
        Bad(json: #"{"name":"t","fields":[{"name":"s","type":"stringset","unique":true}]}"#, code: .uniqueOnStringSet, path: nil,
            message: "Model \"t\": field \"s\" is a stringset and cannot be unique. A unique constraint applies to scalar fields only."),
        Bad(json: #"{"models":[{"name":"a","fields":[],"relationships":[{"name":"r","model":"zz","kind":"refersTo","field":"id"}]}]}"#,
            code: .invalidSchema, path: nil, message: "Model \"a\": relationship \"r\" refers to unknown model \"zz\"."),
    ]

    @Test(arguments: bad) func aBadSchemaFileNamesWhatIsWrong(bad: Bad) throws {
        let json = try AnyValue(jsonText: bad.json)
        let error = #expect(throws: AccordError.self) { try ModelSchema.models(json: json) }
        #expect(error?.code == bad.code)
        #expect(error?.message == bad.message)
        if let path = bad.path { #expect(error?.details["path"] == path) }
    }
}
