public import AccordCRDT

extension ModelSchema {
    /// Checks the model on its own: names, reserved names, types of defaults and
    /// options, unique constraints. Relationship targets need the other models:
    /// ``validate(_:)`` checks a set of models together.
    /// - Throws: `RESERVED_FIELD_NAME`, `UNIQUE_ON_STRINGSET` or `INVALID_SCHEMA`, each
    ///   naming the model and field.
    public func validate() throws(AccordError) {
        try Self.checkName(name, what: "Model", model: name)
        var seen: [String] = []
        for field in fields {
            try check(field)
            guard !seen.contains(field.name) else {
                throw invalid("Model \"\(name)\": field \"\(field.name)\" is declared twice.", field: field.name)
            }
            seen.append(field.name)
        }
        try checkUniqueConstraints()
        var names = seen
        for relationship in relationships {
            guard !names.contains(relationship.name) else {
                throw invalid(
                    "Model \"\(name)\": relationship \"\(relationship.name)\" has the name of another field or relationship.",
                    field: relationship.name)
            }
            names.append(relationship.name)
            try Self.checkName(relationship.name, what: "Relationship", model: name)
        }
    }

    /// Checks every model and the relationships between them: each target model and
    /// each field a relationship names must exist; model names are distinct.
    public static func validate(_ models: [ModelSchema]) throws(AccordError) {
        var byName: [String: ModelSchema] = [:]
        for model in models {
            try model.validate()
            guard byName[model.name] == nil else {
                throw AccordError(.invalidSchema, "Model \"\(model.name)\" is declared twice.", details: ["model": model.name])
            }
            byName[model.name] = model
        }
        for model in models {
            for relationship in model.relationships {
                try model.check(relationship, models: byName)
            }
        }
    }

    // MARK: Fields

    private func check(_ field: FieldSchema) throws(AccordError) {
        if field.name == "type" {
            throw AccordError(
                .reservedFieldName, "Field 'type' is reserved (maps to internal _type column in queries)",
                details: ["model": name, "field": field.name])
        }
        if field.name.hasPrefix("_") {
            throw AccordError(
                .reservedFieldName,
                "Field '\(field.name)' is reserved (names starting with '_' are internal columns in queries)",
                details: ["model": name, "field": field.name])
        }
        try Self.checkName(field.name, what: "Field", model: name)
        if field.name == Self.idField, field.type != .id {
            throw invalid("Model \"\(name)\": field \"id\" is the record id and must have type id.", field: field.name)
        }
        if field.unique, field.type == .stringSet {
            throw AccordError(
                .uniqueOnStringSet,
                "Model \"\(name)\": field \"\(field.name)\" is a stringset and cannot be unique. A unique constraint applies to scalar fields only.",
                details: ["model": name, "field": field.name])
        }
        if field.autoAssign, field.type != .id, field.type != .string {
            throw invalid(
                "Model \"\(name)\": field \"\(field.name)\" has type \(field.type.rawValue); only id and string fields can be auto-assigned.",
                field: field.name)
        }
        if let maxCount = field.maxCount {
            guard field.type == .stringSet, maxCount >= 0 else {
                throw invalid(
                    "Model \"\(name)\": field \"\(field.name)\": maxCount applies to stringset fields and must not be negative.",
                    field: field.name)
            }
        }
        if let value = field.defaultValue {
            do {
                _ = try FieldCoding.check(value, for: field, model: name)
            } catch {
                throw invalid(
                    "Model \"\(name)\": the default of field \"\(field.name)\" is not a valid \(field.type.rawValue): \(error.message)",
                    field: field.name)
            }
        }
    }

    private func checkUniqueConstraints() throws(AccordError) {
        var names: [String] = []
        for constraint in uniqueConstraints {
            try Self.checkName(constraint.name, what: "Unique constraint", model: name)
            guard !names.contains(constraint.name) else {
                throw invalid("Model \"\(name)\": unique constraint \"\(constraint.name)\" is declared twice.", field: nil)
            }
            names.append(constraint.name)
            guard !constraint.fields.isEmpty else {
                throw invalid("Model \"\(name)\": unique constraint \"\(constraint.name)\" names no field.", field: nil)
            }
            for fieldName in constraint.fields {
                guard let field = field(fieldName) else {
                    throw invalid(
                        "Model \"\(name)\": unique constraint \"\(constraint.name)\" names unknown field \"\(fieldName)\".",
                        field: fieldName)
                }
                if field.type == .stringSet {
                    throw AccordError(
                        .uniqueOnStringSet,
                        "Model \"\(name)\": unique constraint \"\(constraint.name)\" names the stringset field \"\(fieldName)\", which cannot be unique. A unique constraint applies to scalar fields only.",
                        details: ["model": name, "field": fieldName, "constraint": constraint.name])
                }
            }
        }
    }

    // MARK: Relationships

    private func check(_ relationship: Relationship, models: [String: ModelSchema]) throws(AccordError) {
        let prefix = "Model \"\(name)\": relationship \"\(relationship.name)\""
        guard let target = models[relationship.model] else {
            throw invalid("\(prefix) refers to unknown model \"\(relationship.model)\".", field: relationship.name)
        }
        func require(_ field: String, in model: ModelSchema) throws(AccordError) {
            guard model.field(field) != nil else {
                throw invalid("\(prefix) names unknown field \"\(field)\" of model \"\(model.name)\".", field: relationship.name)
            }
        }
        switch relationship.kind {
        case .refersTo(let field):
            try require(field, in: self)
        case .hasMany(let foreignField, let orderBy):
            try require(foreignField, in: target)
            if let orderBy { try require(orderBy.field, in: target) }
        case .hasManyThrough(let joinName, let localField, let relatedField, let orderBy):
            guard let join = models[joinName] else {
                throw invalid("\(prefix) goes through unknown model \"\(joinName)\".", field: relationship.name)
            }
            try require(localField, in: join)
            try require(relatedField, in: join)
            if let orderBy { try require(orderBy.field, in: join) }
        }
    }

    // MARK: Names

    /// Names are identifiers: a letter or `_`, then letters, digits or `_`, at most 64
    /// bytes, so they are safe as map keys for every peer and as SQL identifiers.
    static func checkName(_ text: String, what: String, model: String) throws(AccordError) {
        let bytes = Array(text.utf8)
        let valid = !bytes.isEmpty && bytes.count <= 64
            && bytes.enumerated().allSatisfy { index, byte in
                let letter = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
                return letter || (index > 0 && (0x30...0x39).contains(byte))
            }
        guard valid else {
            throw AccordError(
                .invalidSchema,
                "\(what) name \"\(text)\" of model \"\(model)\" is not an identifier (a letter or _, then letters, digits or _, at most 64 bytes).",
                details: ["model": model, "name": text])
        }
    }

    private func invalid(_ message: String, field: String?) -> AccordError {
        var details = ["model": name]
        if let field { details["field"] = field }
        return AccordError(.invalidSchema, message, details: details)
    }
}
