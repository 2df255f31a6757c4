import AccordCRDT
import AccordCodegen
import AccordRecords
import AccordStore

/// The options every `accord records` verb takes: the store, the schema file and the
/// model, plus `--documents`, read from the command line and the schema file.
struct RecordsOptions {
    var storePath: String
    /// Every model of the schema file (registered together, so relationships between
    /// them validate).
    var models: [ModelSchema]
    /// The model `--model` picks.
    var model: ModelSchema

    /// Removes `--store`, `--schema` and `--model` from `args` and reads the schema file.
    /// `--model` may be left out when the file holds one model.
    /// - Throws: `INVALID_ARGUMENT` (usage) for a missing option or an unknown model;
    ///   `IO_ERROR` for an unreadable file; `MALFORMED_JSON`, `INVALID_SCHEMA` (and the
    ///   other schema codes) for a bad schema file, its name in front of the message.
    static func parse(_ args: inout Arguments, help: String) throws(AccordError) -> RecordsOptions {
        let store = try args.removeOption("--store")
        let schemaPath = try args.removeOption("--schema")
        let modelName = try args.removeOption("--model")
        guard let store, !store.isEmpty else { throw AccordCommand.usageError("--store <file> is required", help: help) }
        guard let schemaPath else { throw AccordCommand.usageError("--schema <file> is required", help: help) }
        let models = try readSchemaFile(schemaPath)
        let model: ModelSchema
        if let modelName {
            guard let named = models.first(where: { $0.name == modelName }) else {
                throw AccordCommand.usageError(
                    "\(schemaPath) has no model \"\(modelName)\" (it has \(models.map(\.name).joined(separator: ", ")))", help: help)
            }
            model = named
        } else {
            guard models.count == 1 else {
                throw AccordCommand.usageError("\(schemaPath) holds \(models.count) models: pick one with --model <name>", help: help)
            }
            model = models[0]
        }
        return RecordsOptions(storePath: store, models: models, model: model)
    }

    /// Removes `--documents a,b` and returns the ids; nil when absent. Ids are separated
    /// by commas, so an id with a comma in it cannot be named this way.
    /// - Throws: `INVALID_ARGUMENT` (usage) for an invalid id.
    static func documents(_ args: inout Arguments, help: String) throws(AccordError) -> [DocumentID]? {
        guard let list = try args.removeOption("--documents") else { return nil }
        var ids: [DocumentID] = []
        for text in list.split(separator: ",", omittingEmptySubsequences: false) {
            do throws(AccordError) {
                ids.append(try DocumentID(validating: String(text)))
            } catch {
                throw AccordCommand.usageError("--documents: \(error.message)", help: help)
            }
        }
        return ids
    }

    /// The models of a schema file: `models.toml` (the dialect codegen reads), or JSON
    /// with one model object or `{"models": [...]}`.
    static func readSchemaFile(_ path: String) throws(AccordError) -> [ModelSchema] {
        if path.lowercased().hasSuffix(".toml") { return try SchemaLoader.loadSchema(path: path) }
        let bytes = try Files.read(path)
        do throws(AccordError) {
            return try ModelSchema.models(json: AnyValue(jsonText: String(decoding: bytes, as: UTF8.self)))
        } catch {
            // The file goes in `details["file"]`: `details["path"]` is the JSON path.
            var details = error.details
            details["file"] = path
            throw AccordError(error.code, "\(path): \(error.message)", details: details)
        }
    }
}
