import AccordCRDT
import AccordRecords

/// The Swift names of a set of models, checked before anything is written: a type name
/// per model, and each model's generated members, so two schema names that would
/// generate the same Swift name are refused with the names in the message instead of
/// producing a file that does not compile.
struct ModelNaming {
    private var types: [String: String] = [:]

    init(_ models: [ModelSchema]) throws(AccordError) {
        try ModelSchema.validate(models)
        var owners: [String: String] = [:]
        for model in models {
            let type = SwiftNames.typeName(model.name)
            if SwiftNames.reservedTypeNames.contains(type) {
                throw Self.clash(model.name, "model \"\(model.name)\" would generate type \(type), a name the generated code uses itself; rename the model")
            }
            if let other = owners[type] {
                throw Self.clash(model.name, "models \"\(other)\" and \"\(model.name)\" would both generate type \(type); rename one")
            }
            owners[type] = model.name
            types[model.name] = type
            try Self.checkMembers(model)
        }
    }

    func typeName(_ model: String) -> String { types[model] ?? SwiftNames.typeName(model) }

    /// Each field and relationship with the members it generates, against the members
    /// every model has and each other.
    private static func checkMembers(_ model: ModelSchema) throws(AccordError) {
        var taken: [String: String] = [:]
        func claim(_ member: String, by owner: String, name: String) throws(AccordError) {
            if SwiftNames.reservedMembers.contains(member) {
                throw clash(model.name, "Model \"\(model.name)\": \(owner) would generate member \(member), which every model already has; rename it", field: name)
            }
            if let other = taken[member] {
                throw clash(model.name, "Model \"\(model.name)\": \(owner) and \(other) would both generate member \(member); rename one", field: name)
            }
            taken[member] = owner
        }
        for field in model.fields where field.name != ModelSchema.idField {
            let owner = "field \"\(field.name)\""
            try claim(field.name, by: owner, name: field.name)
            if field.type == .date { try claim(field.name + "ISO8601", by: owner, name: field.name) }
        }
        for relationship in model.relationships {
            let owner = "relationship \"\(relationship.name)\""
            try claim(relationship.name, by: owner, name: relationship.name)
            try claim("include" + SwiftNames.capitalized(relationship.name), by: owner, name: relationship.name)
            try claim("related" + SwiftNames.capitalized(relationship.name), by: owner, name: relationship.name)
        }
        var cases: [String: String] = [:]
        for name in UniqueCase.all(model).map(\.caseName) {
            if let other = cases[name] {
                throw clash(model.name, "Model \"\(model.name)\": unique constraints \"\(other)\" and \"\(name)\" would generate the same case; rename one")
            }
            cases[name] = name
        }
    }

    private static func clash(_ model: String, _ message: String, field: String? = nil) -> AccordError {
        var details = ["model": model, "reason": "swiftNameClash"]
        if let field { details["field"] = field }
        let sentence = message.hasSuffix(".") ? message : message + "."
        let capitalised = sentence.first.map { $0.uppercased() + sentence.dropFirst() } ?? sentence
        return AccordError(.invalidSchema, capitalised, details: details)
    }
}
