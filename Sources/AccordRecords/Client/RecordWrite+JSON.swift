public import AccordCRDT

extension RecordWrite {
    /// A write from one JSON object, as `accord records put` reads them: `"id"` is the
    /// record's id (absent for a new record whose model auto-assigns ids), every other
    /// key a field set to its value (see ``RecordValue/init(json:)``). Which fields
    /// exist and what they may hold is checked when the write is applied.
    /// - Throws: `INVALID_ARGUMENT` for JSON that is not an object, an id that is not a
    ///   non-empty string, or a value no field can hold (naming the field).
    public init(json: AnyValue) throws(AccordError) {
        guard case .object(let entries) = json else {
            throw AccordError(.invalidArgument, "a record must be a JSON object")
        }
        var id: String?
        var values: [String: RecordValue] = [:]
        for (key, value) in entries {
            if key == ModelSchema.idField {
                guard case .string(let text) = value, !text.isEmpty else {
                    throw AccordError(.invalidArgument, "\"id\" must be a non-empty string", details: ["field": key])
                }
                id = text
            } else {
                guard let recordValue = RecordValue(json: value) else {
                    throw AccordError(
                        .invalidArgument,
                        "field \"\(key)\" holds JSON no field can hold (an object, or an array with a non-string in it)",
                        details: ["field": key])
                }
                values[key] = recordValue
            }
        }
        self.init(id: id, values: values)
    }
}
