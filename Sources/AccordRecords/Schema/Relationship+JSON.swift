public import AccordCRDT

extension Relationship {
    /// The relationship as JSON: `name`, `model`, `kind` (`refersTo`, `hasMany`,
    /// `hasManyThrough`) and the fields of that kind.
    public var json: AnyValue {
        var entries: [(String, AnyValue)] = [("name", .string(name)), ("model", .string(model))]
        switch kind {
        case .refersTo(let field):
            entries += [("kind", "refersTo"), ("field", .string(field))]
        case .hasMany(let foreignField, let orderBy):
            entries += [("kind", "hasMany"), ("foreignField", .string(foreignField))]
            if let orderBy { entries.append(("orderBy", orderBy.json)) }
        case .hasManyThrough(let joinModel, let localField, let relatedField, let orderBy):
            entries += [
                ("kind", "hasManyThrough"), ("joinModel", .string(joinModel)), ("localField", .string(localField)),
                ("relatedField", .string(relatedField)),
            ]
            if let orderBy { entries.append(("orderBy", orderBy.json)) }
        }
        return .object(OrderedObject(entries))
    }

    init(json: AnyValue, path: String, model: String?) throws(AccordError) {
        let object = try SchemaJSONObject(json, path: path, model: model)
        let name = try object.requiredString("name")
        let reader = try SchemaJSONObject(json, path: path, model: model, field: name)
        let target = try reader.requiredString("model")
        let kindName = try reader.requiredString("kind")
        let common = ["name", "model", "kind"]
        let kind: Kind
        switch kindName {
        case "refersTo":
            try reader.allowOnly(common + ["field"])
            kind = .refersTo(field: try reader.requiredString("field"))
        case "hasMany":
            try reader.allowOnly(common + ["foreignField", "orderBy"])
            kind = .hasMany(foreignField: try reader.requiredString("foreignField"), orderBy: try Self.orderBy(reader))
        case "hasManyThrough":
            try reader.allowOnly(common + ["joinModel", "localField", "relatedField", "orderBy"])
            kind = .hasManyThrough(
                joinModel: try reader.requiredString("joinModel"), localField: try reader.requiredString("localField"),
                relatedField: try reader.requiredString("relatedField"), orderBy: try Self.orderBy(reader))
        default:
            throw reader.invalid("kind", "unknown kind \"\(kindName)\" (expected refersTo, hasMany or hasManyThrough)")
        }
        self.init(name, model: target, kind)
    }

    private static func orderBy(_ reader: SchemaJSONObject) throws(AccordError) -> SortKey? {
        guard let json = reader.value("orderBy") else { return nil }
        return try SortKey(json: json, path: reader.child("orderBy"), model: reader.model, field: reader.field)
    }
}

extension SortKey {
    /// `{"field": name, "direction": 1 or -1}`; the direction may be left out (ascending).
    public var json: AnyValue {
        .object(OrderedObject([("field", .string(field)), ("direction", .int(Int64(direction.rawValue)))]))
    }

    init(json: AnyValue, path: String, model: String?, field: String?) throws(AccordError) {
        let reader = try SchemaJSONObject(json, path: path, model: model, field: field)
        try reader.allowOnly(["field", "direction"])
        var direction = Direction.ascending
        if let value = try reader.integer("direction") {
            guard let given = Direction(rawValue: value) else { throw reader.invalid("direction", "expected 1 or -1") }
            direction = given
        }
        self.init(try reader.requiredString("field"), direction)
    }
}
