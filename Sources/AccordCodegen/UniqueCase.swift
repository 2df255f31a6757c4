import AccordRecords

/// One unique constraint as the generated `UniqueConstraintName` and `UniqueKey` cases
/// see it: a unique field (one value, unlabelled) or a named constraint (its fields,
/// labelled), in schema order: fields first, then named constraints.
struct UniqueCase {
    var constraint: String
    var caseName: String
    var fields: [FieldSchema]
    var isField: Bool

    static func all(_ model: ModelSchema) -> [UniqueCase] {
        var cases = model.fields.filter(\.unique).map {
            UniqueCase(constraint: $0.name, caseName: $0.name, fields: [$0], isField: true)
        }
        for constraint in model.uniqueConstraints {
            let fields = constraint.fields.compactMap { model.field($0) }
            cases.append(UniqueCase(constraint: constraint.name, caseName: SwiftNames.lowerCamel(constraint.name), fields: fields, isField: false))
        }
        return cases
    }
}
