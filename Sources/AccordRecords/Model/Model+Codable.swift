/// `Codable` for models, by their schema: a record is one JSON object of its fields,
/// `id` included, the shape other SDKs and `accord records` use. Generated models
/// forward `encode(to:)` and `init(from:)` here, so the mapping lives (and is tested)
/// once. Absent fields are left out; a null decodes as absent; a string set is an array
/// of strings; a date is its ISO-8601 text; keys the schema does not have are ignored.
extension Model {
    /// Writes the record's fields as one keyed container.
    public func encodeFields(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldCodingKey.self)
        if let id { try container.encode(id, forKey: FieldCodingKey(ModelSchema.idField)) }
        for field in Self.schema.fields where field.name != ModelSchema.idField {
            let key = FieldCodingKey(field.name)
            switch storage[field.name] {
            case nil, .null?: continue
            case .bool(let flag)?: try container.encode(flag, forKey: key)
            case .number(let number)?: try container.encode(number, forKey: key)
            case .string(let text)?: try container.encode(text, forKey: key)
            case .stringSet(let set)?: try container.encode(set.members, forKey: key)
            }
        }
    }

    /// The storage of a new record (every field counts as changed) read from one keyed
    /// container, each field as its schema type says.
    public static func decodeFields(from decoder: any Decoder) throws -> RecordStorage {
        let container = try decoder.container(keyedBy: FieldCodingKey.self)
        let idKey = FieldCodingKey(ModelSchema.idField)
        var storage = RecordStorage(id: try container.decodeIfPresent(String.self, forKey: idKey))
        for field in schema.fields where field.name != ModelSchema.idField {
            let key = FieldCodingKey(field.name)
            guard container.contains(key), try !container.decodeNil(forKey: key) else { continue }
            switch field.type {
            case .id, .string, .date: storage[field.name] = .string(try container.decode(String.self, forKey: key))
            case .number: storage[field.name] = .number(try container.decode(Double.self, forKey: key))
            case .boolean: storage[field.name] = .bool(try container.decode(Bool.self, forKey: key))
            case .stringSet: storage[field.name] = .stringSet(StringSet(try container.decode([String].self, forKey: key)))
            }
        }
        return storage
    }
}

/// A field name as a coding key (field names are known only from the schema).
struct FieldCodingKey: CodingKey {
    let stringValue: String
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}
