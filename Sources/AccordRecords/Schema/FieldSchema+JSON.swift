public import AccordCRDT

extension FieldSchema {
    /// The field as JSON: `name` and `type`, then only the options that differ from
    /// their defaults (`indexed`, `default`, `unique`, `autoAssign`, `maxCount`).
    public var json: AnyValue {
        var entries: [(String, AnyValue)] = [("name", .string(name)), ("type", .string(type.rawValue))]
        if indexed { entries.append(("indexed", true)) }
        if let defaultValue { entries.append(("default", defaultValue.json)) }
        if unique { entries.append(("unique", true)) }
        if autoAssign { entries.append(("autoAssign", true)) }
        if let maxCount { entries.append(("maxCount", .int(Int64(maxCount)))) }
        return .object(OrderedObject(entries))
    }

    static let jsonKeys = ["name", "type", "indexed", "default", "unique", "autoAssign", "maxCount"]

    /// Reads the object at `path` of a schema file. Only the shape is checked here; the
    /// rules (a default of the field's type, names, ...) are ``ModelSchema/validate()``'s.
    init(json: AnyValue, path: String, model: String?) throws(AccordError) {
        let object = try SchemaJSONObject(json, path: path, model: model)
        let name = try object.requiredString("name")
        let reader = try SchemaJSONObject(json, path: path, model: model, field: name)
        try reader.allowOnly(Self.jsonKeys)
        let typeName = try reader.requiredString("type")
        guard let type = FieldType(rawValue: typeName) else {
            let known = FieldType.allCases.map(\.rawValue).joined(separator: ", ")
            throw reader.invalid("type", "unknown type \"\(typeName)\" (expected one of \(known))")
        }
        var defaultValue: RecordValue?
        if let json = reader.value("default") {
            guard let value = RecordValue(json: json) else {
                throw reader.invalid("default", "expected a number, string, boolean, null or array of strings")
            }
            defaultValue = value
        }
        self.init(
            name, type, indexed: try reader.bool("indexed") ?? false, defaultValue: defaultValue,
            unique: try reader.bool("unique") ?? false, autoAssign: try reader.bool("autoAssign") ?? false,
            maxCount: try reader.integer("maxCount"))
    }
}
