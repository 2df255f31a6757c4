public import AccordCRDT
public import AccordTOML

/// Reads the `models.toml` dialect into ``ModelSchema``s:
///
/// ```toml
/// [models.todos.fields.title]
/// type = "string"
/// indexed = true
///
/// [[models.todos.unique_constraints]]
/// name = "title_due"
/// fields = ["title", "due"]
///
/// [models.todos.relationships.project]
/// type = "refersTo"
/// model = "projects"
/// related_id_field = "project_id"
/// ```
///
/// Fields: `type` (`id`, `string`, `number`, `boolean`, `date`, `stringset`),
/// `auto_assign`, `indexed`, `default`, `unique`, `max_count`. Relationships: `type`
/// (`refersTo`, `hasMany`, `hasManyThrough`), `model`, `related_id_field` (for
/// `refersTo` the field of this model holding the related id; for `hasMany` the field
/// of the related model holding this record's id), `order_by_field`,
/// `order_direction` (`asc` / `desc`), and for `hasManyThrough` `join_model`,
/// `join_model_local_field`, `join_model_related_field`, `join_model_order_by_field`,
/// `join_model_order_direction`. Names are snake_case here, camelCase in Swift.
///
/// Every refusal names the TOML block (and its position) and says what to change;
/// nothing is returned unless the whole file is valid.
public enum TomlSchemaLoader {
    /// The models of a `models.toml` text, validated together.
    /// - Throws: `INVALID_SCHEMA` for TOML that does not parse or breaks the dialect
    ///   (unknown keys or types, missing targets, with the position), and the schema
    ///   rules' codes (`RESERVED_FIELD_NAME`, `UNIQUE_ON_STRINGSET`, `INVALID_SCHEMA`)
    ///   prefixed with the block they concern.
    public static func load(_ text: String) throws(AccordError) -> [ModelSchema] {
        let document: TOMLTable
        do {
            document = try TOML.parse(text)
        } catch {
            throw AccordError(
                .invalidSchema, "models.toml: \(error.description)",
                details: ["line": String(error.position.line), "column": String(error.position.column)])
        }
        try expectOnly(["models"], in: document, block: "the top level")
        guard case .table(let modelsTable)? = document["models"] else {
            throw AccordError(.invalidSchema, "models.toml: no [models.<name>] table", details: [:])
        }
        var models: [ModelSchema] = []
        for (name, value) in modelsTable.entries {
            guard case .table(let table) = value else {
                throw invalid("[models.\(name)]", "expected a table", modelsTable.position(of: name))
            }
            models.append(try model(name, table))
        }
        try validate(models)
        return models
    }

    // MARK: Models

    private static func model(_ name: String, _ table: TOMLTable) throws(AccordError) -> ModelSchema {
        let block = "[models.\(name)]"
        try expectOnly(["fields", "unique_constraints", "relationships"], in: table, block: block)
        var fields: [FieldSchema] = []
        if let value = table["fields"] {
            guard case .table(let fieldTable) = value else { throw invalid("\(block).fields", "expected a table", table.position(of: "fields")) }
            for (fieldName, fieldValue) in fieldTable.entries {
                let fieldBlock = "[models.\(name).fields.\(fieldName)]"
                guard case .table(let options) = fieldValue else {
                    throw invalid(fieldBlock, "expected a table", fieldTable.position(of: fieldName))
                }
                fields.append(try field(fieldName, options, block: fieldBlock))
            }
        }
        var constraints: [UniqueConstraint] = []
        if let value = table["unique_constraints"] {
            guard case .array(let entries) = value else {
                throw invalid("[[models.\(name).unique_constraints]]", "expected an array of tables", table.position(of: "unique_constraints"))
            }
            for entry in entries {
                let constraintBlock = "[[models.\(name).unique_constraints]]"
                guard case .table(let options) = entry else {
                    throw invalid(constraintBlock, "expected a table", table.position(of: "unique_constraints"))
                }
                try expectOnly(["name", "fields"], in: options, block: constraintBlock)
                let constraintName = try string("name", in: options, block: constraintBlock, required: true)!
                guard case .array(let names)? = options["fields"] else {
                    throw invalid(constraintBlock, "\"fields\" must be an array of field names", options.position(of: "fields") ?? options.position)
                }
                var fieldNames: [String] = []
                for element in names {
                    guard case .string(let fieldName) = element else {
                        throw invalid(constraintBlock, "\"fields\" must be an array of field names", options.position(of: "fields"))
                    }
                    fieldNames.append(fieldName)
                }
                constraints.append(UniqueConstraint(constraintName, fields: fieldNames))
            }
        }
        var relationships: [Relationship] = []
        if let value = table["relationships"] {
            guard case .table(let relationshipTable) = value else {
                throw invalid("\(block).relationships", "expected a table", table.position(of: "relationships"))
            }
            for (relationshipName, relationshipValue) in relationshipTable.entries {
                let relationshipBlock = "[models.\(name).relationships.\(relationshipName)]"
                guard case .table(let options) = relationshipValue else {
                    throw invalid(relationshipBlock, "expected a table", relationshipTable.position(of: relationshipName))
                }
                relationships.append(try relationship(relationshipName, options, block: relationshipBlock))
            }
        }
        return ModelSchema(name, fields: fields, uniqueConstraints: constraints, relationships: relationships)
    }

    private static func field(_ name: String, _ options: TOMLTable, block: String) throws(AccordError) -> FieldSchema {
        try expectOnly(["type", "auto_assign", "indexed", "default", "unique", "max_count"], in: options, block: block)
        let typeName = try string("type", in: options, block: block, required: true)!
        guard let type = FieldType(rawValue: typeName) else {
            throw invalid(
                block, "unknown type \"\(typeName)\" (expected id, string, number, boolean, date or stringset)",
                options.position(of: "type"))
        }
        var field = FieldSchema(name, type)
        field.autoAssign = try bool("auto_assign", in: options, block: block) ?? false
        field.indexed = try bool("indexed", in: options, block: block) ?? false
        field.unique = try bool("unique", in: options, block: block) ?? false
        if let value = options["max_count"] {
            guard case .integer(let count) = value, count >= 0 else {
                throw invalid(block, "\"max_count\" must be a non-negative integer", options.position(of: "max_count"))
            }
            field.maxCount = Int(count)
        }
        if let value = options["default"] {
            field.defaultValue = try defaultValue(value, type: type, block: block, position: options.position(of: "default"))
        }
        return field
    }

    private static func defaultValue(
        _ value: TOMLValue, type: FieldType, block: String, position: TOMLPosition?
    ) throws(AccordError) -> RecordValue {
        switch (type, value) {
        case (.id, .string(let text)), (.string, .string(let text)): return .string(text)
        case (.date, .string(let text)): return .string(text)
        case (.date, .offsetDateTime(let date)):
            // TOML date-times become the one stored form (UTC, milliseconds).
            guard let year = date.year, let month = date.month, let day = date.day, let hour = date.hour,
                  let minute = date.minute, let second = date.second, let offset = date.offsetMinutes,
                  let text = ISODate.text(
                    year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                    milliseconds: Int((date.fraction + "000").prefix(3)) ?? 0, offsetMinutes: offset)
            else {
                throw invalid(block, "the default date is outside the years 0000 to 9999", position)
            }
            return .string(text)
        case (.number, .integer(let number)): return .number(Double(number))
        case (.number, .float(let number)): return .number(number)
        case (.boolean, .boolean(let flag)): return .bool(flag)
        case (.stringSet, .array(let elements)):
            var members: [String] = []
            for element in elements {
                guard case .string(let member) = element else {
                    throw invalid(block, "a stringset default is an array of strings", position)
                }
                members.append(member)
            }
            return .stringSet(StringSet(members))
        default:
            throw invalid(block, "the default does not fit type \(type.rawValue)", position)
        }
    }

    private static func relationship(_ name: String, _ options: TOMLTable, block: String) throws(AccordError) -> Relationship {
        try expectOnly(
            ["type", "model", "related_id_field", "order_by_field", "order_direction", "join_model", "join_model_local_field",
             "join_model_related_field", "join_model_order_by_field", "join_model_order_direction"],
            in: options, block: block)
        let kind = try string("type", in: options, block: block, required: true)!
        let target = try string("model", in: options, block: block, required: true)!
        func order(_ field: String, _ direction: String) throws(AccordError) -> SortKey? {
            guard let orderField = try string(field, in: options, block: block) else { return nil }
            switch try string(direction, in: options, block: block) ?? "asc" {
            case "asc": return SortKey(orderField, .ascending)
            case "desc": return SortKey(orderField, .descending)
            case let other:
                throw invalid(block, "\"\(direction)\" must be \"asc\" or \"desc\", not \"\(other)\"", options.position(of: direction))
            }
        }
        switch kind {
        case "refersTo":
            let field = try string("related_id_field", in: options, block: block, required: true)!
            return Relationship(name, model: target, .refersTo(field: field))
        case "hasMany":
            let field = try string("related_id_field", in: options, block: block, required: true)!
            return Relationship(name, model: target, .hasMany(foreignField: field, orderBy: try order("order_by_field", "order_direction")))
        case "hasManyThrough":
            let join = try string("join_model", in: options, block: block, required: true)!
            let local = try string("join_model_local_field", in: options, block: block, required: true)!
            let related = try string("join_model_related_field", in: options, block: block, required: true)!
            return Relationship(
                name, model: target,
                .hasManyThrough(
                    joinModel: join, localField: local, relatedField: related,
                    orderBy: try order("join_model_order_by_field", "join_model_order_direction")))
        default:
            throw invalid(
                block, "unknown relationship type \"\(kind)\" (expected refersTo, hasMany or hasManyThrough)",
                options.position(of: "type"))
        }
    }

    // MARK: Validation

    /// The records layer's rules, with the block each refusal concerns in front.
    private static func validate(_ models: [ModelSchema]) throws(AccordError) {
        do {
            try ModelSchema.validate(models)
        } catch {
            var details = error.details
            var message = error.message
            if let model = details["model"] {
                let block = details["field"].map { "[models.\(model).fields.\($0)]" } ?? "[models.\(model)]"
                if error.code == .reservedFieldName { message = "\(block): \(message)" }
                details["block"] = block
            }
            throw AccordError(error.code, message, details: details)
        }
    }

    // MARK: Reading options

    private static func expectOnly(_ allowed: Set<String>, in table: TOMLTable, block: String) throws(AccordError) {
        for key in table.keys where !allowed.contains(key) {
            throw invalid(block, "unknown key \"\(key)\" (expected \(allowed.sorted().joined(separator: ", ")))", table.position(of: key))
        }
    }

    private static func string(
        _ key: String, in table: TOMLTable, block: String, required: Bool = false
    ) throws(AccordError) -> String? {
        guard let value = table[key] else {
            if required { throw invalid(block, "\"\(key)\" is required", table.position) }
            return nil
        }
        guard case .string(let text) = value else { throw invalid(block, "\"\(key)\" must be a string", table.position(of: key)) }
        return text
    }

    private static func bool(_ key: String, in table: TOMLTable, block: String) throws(AccordError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard case .boolean(let flag) = value else { throw invalid(block, "\"\(key)\" must be true or false", table.position(of: key)) }
        return flag
    }

    private static func invalid(_ block: String, _ problem: String, _ position: TOMLPosition?) -> AccordError {
        var details = ["block": block]
        var at = ""
        if let position {
            details["line"] = String(position.line)
            details["column"] = String(position.column)
            at = " (line \(position.line), column \(position.column))"
        }
        return AccordError(.invalidSchema, "\(block)\(at): \(problem)", details: details)
    }
}
