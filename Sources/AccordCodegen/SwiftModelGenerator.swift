public import AccordCRDT
public import AccordRecords
import AccordStore

/// Turns model schemas into Swift source: one `Model` struct per model with typed
/// properties, field names, unique keys, relationship traversals and include helpers,
/// and `Codable` (docs/codegen.md shows the output). Pure: the same schemas and source
/// name always give byte-identical text, so generated folders diff cleanly and builds
/// that regenerate them change nothing.
public struct SwiftModelGenerator: Sendable {
    /// The schema file's name, quoted in each file's banner.
    public var sourceName: String

    public init(sourceName: String) {
        self.sourceName = sourceName
    }

    /// One file per model, `<Type>.swift`, sorted by name.
    /// - Throws: what ``ModelSchema/validate(_:)`` throws, and `INVALID_SCHEMA` when two
    ///   models get one type name or a name would clash with a generated member.
    public func files(for models: [ModelSchema]) throws(AccordError) -> [GeneratedFile] {
        let plan = try ModelNaming(models)
        var files: [GeneratedFile] = []
        for model in models {
            var text = SourceText()
            let hash = try model.schemaHash
            for line in GeneratedBanner.lines(source: sourceName, hash: hash) { text.line(line) }
            text.line()
            writeImports(for: [model], to: &text)
            text.line()
            write(model, hash: hash, naming: plan, to: &text)
            files.append(GeneratedFile(name: "\(plan.typeName(model.name)).swift", contents: text.text))
        }
        return files.sorted { $0.name < $1.name }
    }

    /// Every model in one file: what the build tool plugin writes, since a build command
    /// must name its output files before it runs and the plugin does not read schemas.
    /// The banner's hash covers all the models.
    public func singleFile(named name: String, for models: [ModelSchema]) throws(AccordError) -> GeneratedFile {
        let plan = try ModelNaming(models)
        var hasher = try SHA256Hasher()
        hasher.update(Array(AnyValue.array(models.map(\.json)).jsonText.utf8))
        var text = SourceText()
        for line in GeneratedBanner.lines(source: sourceName, hash: hasher.finish().hex) { text.line(line) }
        text.line()
        writeImports(for: models, to: &text)
        for model in models.sorted(by: { plan.typeName($0.name) < plan.typeName($1.name) }) {
            text.line()
            write(model, hash: try model.schemaHash, naming: plan, to: &text)
        }
        return GeneratedFile(name: name, contents: text.text)
    }

    /// `public import` (the generated types are public and show these modules' types)
    /// of only the modules the code uses, so a package that checks imports has no
    /// warnings: AccordError is AccordCRDT's (throwing traversals and unique keys),
    /// DocumentID AccordStore's (unique saves), Date Foundation's.
    private func writeImports(for models: [ModelSchema], to text: inout SourceText) {
        let unique = models.contains { !$0.uniqueConstraints.isEmpty || $0.fields.contains(where: \.unique) }
        let throwing = unique || models.contains { !$0.relationships.isEmpty }
        let dates = models.contains { $0.fields.contains { $0.type == .date } }
        if throwing { text.line("public import AccordCRDT") }
        text.line("public import AccordRecords")
        if unique { text.line("public import AccordStore") }
        if dates { text.line("public import Foundation") }
    }

    private func write(_ model: ModelSchema, hash: String, naming: ModelNaming, to text: inout SourceText) {
        let type = naming.typeName(model.name)
        let fields = model.fields.filter { $0.name != ModelSchema.idField }
        text.line("/// A record of model `\(model.name)`.")
        text.block("public struct \(type): Model, Codable, Identifiable, Hashable {") { body in
            writeSchema(model, to: &body)
            body.line("public static let schemaHash: String? = \(SwiftNames.literal(hash))")
            body.line()
            body.line("/// `Identifiable` by the record id (`Model.id`), nil until a new record is saved.")
            body.line("public typealias ID = String?")
            body.line()
            body.line("public var storage: RecordStorage")
            body.line()
            body.line("public init(storage: RecordStorage) { self.storage = storage }")
            body.line()
            writeMemberwiseInit(fields, to: &body)
            for field in fields {
                body.line()
                writeProperty(field, to: &body)
            }
        }
        text.line()
        writeFieldNames(model, type: type, to: &text)
        if !model.uniqueConstraints.isEmpty || model.fields.contains(where: \.unique) {
            text.line()
            writeUnique(model, type: type, to: &text)
        }
        if !model.relationships.isEmpty {
            text.line()
            writeRelationships(model, type: type, naming: naming, to: &text)
        }
        text.line()
        writeCodable(type: type, to: &text)
    }

    private func writeCodable(type: String, to text: inout SourceText) {
        text.line("// A record is one JSON object of its fields, id included (see Model.encodeFields).")
        text.block("extension \(type) {") { body in
            body.block("public init(from decoder: any Decoder) throws {") { $0.line("self.init(storage: try Self.decodeFields(from: decoder))") }
            body.line()
            body.block("public func encode(to encoder: any Encoder) throws {") { $0.line("try encodeFields(to: encoder)") }
        }
    }
}

extension SwiftModelGenerator {
    /// The Swift type a model generates (`tasks` → `Task`, `task_labels` → `TaskLabel`).
    public static func typeName(_ model: String) -> String { SwiftNames.typeName(model) }
}
