public import AccordCRDT
public import AccordRecords
import Foundation

/// Reads a schema file for codegen, by its extension: `.json` is the JSON form
/// `accord records --schema` reads (one model or `{"models": [...]}`); `.toml` is the
/// `models.toml` dialect, which needs the TOML parser (AccordTOML) and is refused
/// until that lands: its loader is one more `case` here.
public enum SchemaLoader {
    /// The validated models of the file at `path`.
    /// - Throws: `IO_ERROR` for an unreadable file; `MALFORMED_JSON`, `INVALID_SCHEMA`,
    ///   `RESERVED_FIELD_NAME`, `UNIQUE_ON_STRINGSET` with the file name in front of the
    ///   message and in `details["file"]`; `INVALID_ARGUMENT` for another extension.
    public static func loadSchema(path: String) throws(AccordError) -> [ModelSchema] {
        switch URL(fileURLWithPath: path).pathExtension.lowercased() {
        case "json":
            let bytes = try read(path)
            do throws(AccordError) {
                return try ModelSchema.models(json: AnyValue(jsonText: String(decoding: bytes, as: UTF8.self)))
            } catch {
                var details = error.details
                details["file"] = path
                throw AccordError(error.code, "\(path): \(error.message)", details: details)
            }
        case "toml":
            throw AccordError(
                .invalidArgument, "\(path): TOML schemas need AccordTOML, which this build does not have yet; use the JSON form (models.json)",
                details: ["file": path])
        default:
            throw AccordError(
                .invalidArgument, "\(path): unknown schema file type (expected .json or .toml)", details: ["file": path])
        }
    }

    private static func read(_ path: String) throws(AccordError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw AccordError(.ioError, "\(path): cannot read (no such file, or not readable)", details: ["path": path])
        }
        return data
    }
}
