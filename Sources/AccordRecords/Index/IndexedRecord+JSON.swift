public import AccordCRDT

extension IndexedRecord {
    /// The record as one JSON object: `id`, `document`, then its fields in the model's
    /// order (values as ``RecordValue/json``; absent and null fields are left out, as
    /// the index holds them as one).
    public func json(model: ModelSchema) -> AnyValue {
        var entries: [(String, AnyValue)] = [("id", .string(id)), ("document", .string(document.rawValue))]
        for field in model.fields where field.name != ModelSchema.idField {
            guard let value = record.values[field.name], value != .null else { continue }
            entries.append((field.name, value.json))
        }
        return .object(OrderedObject(entries))
    }
}

extension QueryPage {
    /// `{"data": [...], "nextCursor": text or null, "hasMore": bool}`.
    public func json(model: ModelSchema) -> AnyValue {
        .object(OrderedObject([
            ("data", .array(data.map { $0.json(model: model) })),
            ("nextCursor", nextCursor.map { .string($0) } ?? .null),
            ("hasMore", .bool(hasMore)),
        ]))
    }
}
