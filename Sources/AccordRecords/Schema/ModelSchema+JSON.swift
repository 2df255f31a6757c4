public import AccordCRDT

/// Schemas as JSON, the form of schema files (`accord records --schema`) and of
/// schemas other SDKs send. The shape (docs/records.md, "CLI and schema files"):
///
/// ```json
/// {"name": "tasks",
///  "fields": [{"name": "id", "type": "id", "autoAssign": true},
///             {"name": "title", "type": "string", "indexed": true},
///             {"name": "priority", "type": "number", "default": 1},
///             {"name": "tags", "type": "stringset", "maxCount": 8}],
///  "uniqueConstraints": [{"name": "title_priority", "fields": ["title", "priority"]}],
///  "relationships": [{"name": "project", "model": "projects", "kind": "refersTo", "field": "projectId"}]}
/// ```
///
/// Fields are an array, not an object keyed by name, so their order is kept and a
/// field declared twice is seen (a JSON object would keep one of the two silently).
extension ModelSchema {
    /// The model as JSON; ``init(json:)`` reads it back to an equal schema.
    public var json: AnyValue {
        var entries: [(String, AnyValue)] = [("name", .string(name)), ("fields", .array(fields.map(\.json)))]
        if !uniqueConstraints.isEmpty {
            entries.append(("uniqueConstraints", .array(uniqueConstraints.map(\.json))))
        }
        if !relationships.isEmpty { entries.append(("relationships", .array(relationships.map(\.json)))) }
        return .object(OrderedObject(entries))
    }

    /// Reads one model object. Only the shape is checked: unknown keys, values of the
    /// wrong JSON type, unknown field types or relationship kinds. The rules of a
    /// schema are checked by ``validate()`` (``models(json:)`` runs them).
    /// - Throws: `INVALID_SCHEMA` with the path of the fault (`fields[2].type`) in the
    ///   message and `details["path"]`.
    public init(json: AnyValue) throws(AccordError) {
        try self.init(json: json, path: "")
    }

    /// Reads a schema file: one model object, or `{"models": [...]}`, and checks the
    /// models together (``validate(_:)``), relationships between them included.
    /// - Throws: `INVALID_SCHEMA` naming the path, or what ``validate(_:)`` throws.
    public static func models(json: AnyValue) throws(AccordError) -> [ModelSchema] {
        let root = try SchemaJSONObject(json, path: "", model: nil)
        var models: [ModelSchema] = []
        if let list = root.value("models") {
            try root.allowOnly(["models"])
            guard case .array(let elements) = list, !elements.isEmpty else {
                throw root.invalid("models", "expected a non-empty array of models")
            }
            for (index, element) in elements.enumerated() {
                models.append(try ModelSchema(json: element, path: "models[\(index)]"))
            }
        } else {
            models.append(try ModelSchema(json: json))
        }
        try validate(models)
        return models
    }

    private init(json: AnyValue, path: String) throws(AccordError) {
        let object = try SchemaJSONObject(json, path: path, model: nil)
        let name = try object.requiredString("name")
        let reader = try SchemaJSONObject(json, path: path, model: name)
        try reader.allowOnly(["name", "fields", "uniqueConstraints", "relationships"])
        guard let fieldList = try reader.array("fields") else { throw reader.invalid("fields", "missing (an array is required)") }
        var fields: [FieldSchema] = []
        for (index, element) in fieldList.enumerated() {
            fields.append(try FieldSchema(json: element, path: reader.child("fields[\(index)]"), model: name))
        }
        var constraints: [UniqueConstraint] = []
        for (index, element) in (try reader.array("uniqueConstraints") ?? []).enumerated() {
            constraints.append(try UniqueConstraint(json: element, path: reader.child("uniqueConstraints[\(index)]"), model: name))
        }
        var relationships: [Relationship] = []
        for (index, element) in (try reader.array("relationships") ?? []).enumerated() {
            relationships.append(try Relationship(json: element, path: reader.child("relationships[\(index)]"), model: name))
        }
        self.init(name, fields: fields, uniqueConstraints: constraints, relationships: relationships)
    }
}

extension UniqueConstraint {
    /// `{"name": ..., "fields": [...]}`.
    public var json: AnyValue {
        .object(OrderedObject([("name", .string(name)), ("fields", .array(fields.map { .string($0) }))]))
    }

    init(json: AnyValue, path: String, model: String?) throws(AccordError) {
        let reader = try SchemaJSONObject(json, path: path, model: model)
        try reader.allowOnly(["name", "fields"])
        let name = try reader.requiredString("name")
        guard let list = try reader.array("fields") else { throw reader.invalid("fields", "missing (an array is required)") }
        var fields: [String] = []
        for element in list {
            guard case .string(let field) = element else { throw reader.invalid("fields", "expected an array of field names") }
            fields.append(field)
        }
        self.init(name, fields: fields)
    }
}
