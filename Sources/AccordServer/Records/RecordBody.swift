import AccordCRDT
import AccordRecords

/// A record as a REST body: one JSON object of field → value, read against the model's
/// schema into a ``RecordWrite``. Every fault is found before anything is written:
///
/// - a key named `type` or starting with `_` is `RESERVED_FIELD_NAME` (those names are
///   the index's own columns), checked first;
/// - unknown fields and values of the wrong type are one `VALIDATION_FAILED` whose
///   `details` name each of them as `value.<key>` (prefixed by `prefix` in a bulk body).
///
/// Values are JSON as the records CLI reads them (a string set is an array of strings).
enum RecordBody {
    /// A new record: `id` (optional when the model auto-assigns ids) and fields; a
    /// `null` field is left absent.
    static func create(_ json: AnyValue, model: ModelSchema, prefix: String = "") throws(AccordError) -> RecordWrite {
        let entries = try object(json, prefix: prefix)
        var id: String?
        var values: [String: RecordValue] = [:]
        var faults: [String: String] = [:]
        for (key, value) in entries where key == ModelSchema.idField {
            if case .string(let text) = value, !text.isEmpty { id = text } else {
                faults["\(prefix)value.id"] = "expected a non-empty string"
            }
        }
        for (key, value) in entries where key != ModelSchema.idField {
            guard let recordValue = check(key, value, model: model, prefix: prefix, faults: &faults) else { continue }
            if recordValue != .null { values[key] = recordValue }
        }
        try refuse(faults, model: model)
        return RecordWrite(id: id, values: values)
    }

    /// An RFC 7396 merge patch of record `id`: a value replaces the field (a string set
    /// takes the whole array), `null` unsets it. An `id` key must name the same record.
    static func patch(_ json: AnyValue, id: String, model: ModelSchema, prefix: String = "") throws(AccordError) -> RecordWrite {
        let entries = try object(json, prefix: prefix)
        var values: [String: RecordValue] = [:]
        var removing: Set<String> = []
        var faults: [String: String] = [:]
        for (key, value) in entries {
            if key == ModelSchema.idField {
                if value != .string(id) { faults["\(prefix)value.id"] = "a record's id cannot change" }
                continue
            }
            guard let recordValue = check(key, value, model: model, prefix: prefix, faults: &faults) else { continue }
            if recordValue == .null { removing.insert(key) } else { values[key] = recordValue }
        }
        try refuse(faults, model: model)
        return RecordWrite(id: id, values: values, removing: removing)
    }

    /// The body's entries; `RESERVED_FIELD_NAME` for the first reserved key.
    private static func object(_ json: AnyValue, prefix: String) throws(AccordError) -> OrderedObject {
        guard case .object(let entries) = json else {
            throw AccordError(.validationFailed, "a record is a JSON object of field values",
                              details: ["\(prefix)value": "expected an object"])
        }
        for key in entries.keys where key == "type" || key.hasPrefix("_") {
            let why = key == "type"
                ? "maps to internal _type column in queries" : "names starting with '_' are internal columns in queries"
            throw AccordError(.reservedFieldName, "Field '\(key)' is reserved (\(why))", details: ["field": "\(prefix)value.\(key)"])
        }
        return entries
    }

    /// The value of one field, or nil with the fault recorded.
    private static func check(
        _ key: String, _ json: AnyValue, model: ModelSchema, prefix: String, faults: inout [String: String]
    ) -> RecordValue? {
        guard let field = model.field(key) else {
            faults["\(prefix)value.\(key)"] = "unknown field of model \(model.name)"
            return nil
        }
        guard let value = RecordValue(json: json), field.accepts(value) else {
            faults["\(prefix)value.\(key)"] = expectation(field)
            return nil
        }
        return value
    }

    private static func expectation(_ field: FieldSchema) -> String {
        switch field.type {
        case .id: "expected a non-empty string (id)"
        case .string: "expected a string"
        case .number: "expected a finite number"
        case .boolean: "expected a boolean"
        case .date: "expected a date as YYYY-MM-DDTHH:MM:SS.sssZ"
        case .stringSet: field.maxCount.map { "expected an array of at most \($0) strings" } ?? "expected an array of strings"
        }
    }

    static func refuse(_ faults: [String: String], model: ModelSchema) throws(AccordError) {
        guard !faults.isEmpty else { return }
        let keys = faults.keys.sorted().joined(separator: ", ")
        throw AccordError(.validationFailed, "Model \"\(model.name)\": invalid record (\(keys))", details: faults)
    }
}
