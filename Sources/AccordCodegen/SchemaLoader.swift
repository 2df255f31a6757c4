public import AccordCRDT
public import AccordRecords
import Foundation

/// Reads a schema file for codegen, by its extension: `.toml` is the `models.toml`
/// dialect (``TomlSchemaLoader``), `.json` the JSON form `accord records --schema`
/// reads (one model or `{"models": [...]}`). Both give validated ``ModelSchema``s, so
/// the generator never sees the file format.
public enum SchemaLoader {
    /// The validated models of the file at `path`.
    /// - Throws: `IO_ERROR` for an unreadable file; `INVALID_SCHEMA` (with the TOML
    ///   block and position, or the JSON path), `MALFORMED_JSON`, `RESERVED_FIELD_NAME`,
    ///   `UNIQUE_ON_STRINGSET`, the file's path in front of the message and in
    ///   `details["file"]`; `INVALID_ARGUMENT` for another extension.
    public static func loadSchema(path: String) throws(AccordError) -> [ModelSchema] {
        let text: String
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "json", "toml": text = String(decoding: try read(path), as: UTF8.self)
        default:
            throw AccordError(
                .invalidArgument, "\(path): unknown schema file type (expected .toml or .json)", details: ["file": path])
        }
        do throws(AccordError) {
            if path.lowercased().hasSuffix(".toml") { return try TomlSchemaLoader.load(text) }
            return try ModelSchema.models(json: AnyValue(jsonText: text))
        } catch {
            throw attributed(error, to: path)
        }
    }

    /// `error` with the file's path in front of its message (in place of the generic
    /// `models.toml: ` the TOML loader puts on file-wide faults).
    private static func attributed(_ error: AccordError, to path: String) -> AccordError {
        var details = error.details
        details["file"] = path
        var message = error.message
        if message.hasPrefix("models.toml: ") { message.removeFirst("models.toml: ".count) }
        return AccordError(error.code, "\(path): \(message)", details: details)
    }

    private static func read(_ path: String) throws(AccordError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AccordError(.ioError, "\(path): cannot read (no such file, or not readable)", details: ["path": path])
        }
        return data
    }
}
