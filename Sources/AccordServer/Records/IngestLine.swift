public import AccordCRDT
public import AccordRecords

/// One line of an ingest file (`<model>.ndjson`): either `<id>` TAB `<merge patch JSON>`,
/// or one JSON object carrying its own `"id"`. The patch is applied as an upsert (a new
/// record gets the model's defaults for the fields the patch leaves out; `null` unsets
/// a field); `{"_deleted": true}` alone deletes the record (nothing happens when there
/// is none). Blank lines are skipped. The CLI checks every line with this before it
/// uploads anything, and the server checks them again when it applies.
package enum IngestLine {
    /// The line's operation; nil for a blank line.
    /// - Throws: `RESERVED_FIELD_NAME`, `VALIDATION_FAILED`, `MALFORMED_JSON` or
    ///   `INVALID_ARGUMENT` (a missing or empty id), as a REST body would.
    static func operation(_ line: Substring, model: ModelSchema) throws(AccordError) -> RecordOperation? {
        let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
        guard trimmed.contains(where: { !$0.isWhitespace }) else { return nil }
        var id: String?
        var jsonText = trimmed
        if let tab = trimmed.firstIndex(of: "\t") {
            id = String(trimmed[..<tab])
            jsonText = trimmed[trimmed.index(after: tab)...]
        }
        guard case .object(var object) = try AnyValue(jsonText: String(jsonText)) else {
            throw AccordError(.validationFailed, "a line holds one JSON object", details: ["value": "expected an object"])
        }
        if let inline = object["id"] {
            guard case .string(let text) = inline, id == nil || id == text else {
                throw AccordError(.invalidArgument, "\"id\" must be a string naming the line's record", details: ["field": "id"])
            }
            id = text
            object["id"] = nil
        }
        guard let id, !id.isEmpty else {
            throw AccordError(.invalidArgument, "a line names its record: <id>\\t{...} or {\"id\": ...}", details: ["field": "id"])
        }
        if object.keys == ["_deleted"] {
            guard object["_deleted"] == .bool(true) else {
                throw AccordError(.validationFailed, "\"_deleted\" is true or absent", details: ["value._deleted": "expected true"])
            }
            return .delete(model, id: id, ifMatch: nil, mustExist: false)
        }
        return .upsert(model, try RecordBody.patch(.object(object), id: id, model: model))
    }

    /// Checks one line (see ``operation(_:model:)``).
    package static func validate(_ line: Substring, model: ModelSchema) throws(AccordError) {
        _ = try operation(line, model: model)
    }
}
