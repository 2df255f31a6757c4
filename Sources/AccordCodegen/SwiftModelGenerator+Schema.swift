import AccordRecords

/// The `schema` static: the model's schema as a Swift literal that rebuilds an equal
/// ``ModelSchema``, so ``ModelSchema/schemaHash`` of it equals the embedded hash.
extension SwiftModelGenerator {
    func writeSchema(_ model: ModelSchema, to text: inout SourceText) {
        text.block("public static let schema = ModelSchema(", closing: ")") { call in
            call.line("\(SwiftNames.literal(model.name)),")
            let hasMore = !model.uniqueConstraints.isEmpty || !model.relationships.isEmpty
            call.block("fields: [", closing: hasMore ? "]," : "]") { list in
                for field in model.fields { list.line(Self.literal(field) + ",") }
            }
            if !model.uniqueConstraints.isEmpty {
                call.block("uniqueConstraints: [", closing: model.relationships.isEmpty ? "]" : "],") { list in
                    for constraint in model.uniqueConstraints {
                        let fields = constraint.fields.map(SwiftNames.literal).joined(separator: ", ")
                        list.line("UniqueConstraint(\(SwiftNames.literal(constraint.name)), fields: [\(fields)]),")
                    }
                }
            }
            if !model.relationships.isEmpty {
                call.block("relationships: [", closing: "]") { list in
                    for relationship in model.relationships {
                        let lines = Self.literalLines(relationship)
                        for (index, line) in lines.enumerated() { list.line((index == 1 ? "    " : "") + line) }
                    }
                }
            }
        }
    }

    static func literal(_ field: FieldSchema) -> String {
        var arguments = [SwiftNames.literal(field.name), "." + caseName(field.type)]
        if field.indexed { arguments.append("indexed: true") }
        if let value = field.defaultValue { arguments.append("defaultValue: \(literal(value))") }
        if field.unique { arguments.append("unique: true") }
        if field.autoAssign { arguments.append("autoAssign: true") }
        if let maxCount = field.maxCount { arguments.append("maxCount: \(maxCount)") }
        return "FieldSchema(\(arguments.joined(separator: ", ")))"
    }

    /// The literal on one line, or wrapped after the kind's opening parenthesis when
    /// it would pass 120 columns, as a person would wrap it.
    static func literalLines(_ relationship: Relationship) -> [String] {
        let whole = literal(relationship) + ","
        guard whole.count > 100, let open = whole.range(of: ", .")?.upperBound,
              let paren = whole[open...].firstIndex(of: "(")
        else { return [whole] }
        let head = String(whole[..<whole.index(after: paren)])
        let inner = String(whole[whole.index(after: paren)...].dropLast(3))  // without ")),"
        return [head, inner, ")),"]
    }

    static func literal(_ relationship: Relationship) -> String {
        let kind: String
        switch relationship.kind {
        case .refersTo(let field):
            kind = ".refersTo(field: \(SwiftNames.literal(field)))"
        case .hasMany(let foreignField, let orderBy):
            kind = ".hasMany(foreignField: \(SwiftNames.literal(foreignField)), orderBy: \(literal(orderBy)))"
        case .hasManyThrough(let joinModel, let localField, let relatedField, let orderBy):
            kind = ".hasManyThrough(joinModel: \(SwiftNames.literal(joinModel)), localField: \(SwiftNames.literal(localField)), "
                + "relatedField: \(SwiftNames.literal(relatedField)), orderBy: \(literal(orderBy)))"
        }
        return "Relationship(\(SwiftNames.literal(relationship.name)), model: \(SwiftNames.literal(relationship.model)), \(kind))"
    }

    static func literal(_ key: SortKey?) -> String {
        guard let key else { return "nil" }
        return "SortKey(\(SwiftNames.literal(key.field)), .\(key.direction == .ascending ? "ascending" : "descending"))"
    }

    static func literal(_ value: RecordValue) -> String {
        switch value {
        case .null: return ".null"
        case .bool(let flag): return ".bool(\(flag))"
        case .number(let number): return ".number(\(number))"
        case .string(let text): return ".string(\(SwiftNames.literal(text)))"
        case .stringSet(let set): return ".stringSet([\(set.members.map(SwiftNames.literal).joined(separator: ", "))])"
        }
    }

    static func caseName(_ type: FieldType) -> String {
        switch type {
        case .id: return "id"
        case .string: return "string"
        case .number: return "number"
        case .boolean: return "boolean"
        case .date: return "date"
        case .stringSet: return "stringSet"
        }
    }
}
