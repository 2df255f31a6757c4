import AccordCRDT

/// Puts a stored JSON value (document metadata) into a response built with
/// `JSONEncoder`, as JSON rather than as a string of JSON.
struct EncodableJSON: Encodable {
    var value: AnyValue

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.init(stringValue) }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .undefined, .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let bool):
            var single = encoder.singleValueContainer()
            try single.encode(bool)
        case .int(let int):
            var single = encoder.singleValueContainer()
            try single.encode(int)
        case .double(let double):
            var single = encoder.singleValueContainer()
            try single.encode(double)
        case .string(let string):
            var single = encoder.singleValueContainer()
            try single.encode(string)
        case .bytes(let bytes):
            var single = encoder.singleValueContainer()
            try single.encode(bytes)
        case .array(let elements):
            var list = encoder.unkeyedContainer()
            for element in elements { try list.encode(EncodableJSON(value: element)) }
        case .object(let fields):
            var object = encoder.container(keyedBy: Key.self)
            for (key, field) in fields { try object.encode(EncodableJSON(value: field), forKey: Key(key)) }
        }
    }
}
