import AccordCRDT

/// The stored form of JSON a container has not built properties from: what
/// ``PropertyContainer/json(depth:)`` would give through the properties (objects with
/// keys in code-point order, `undefined` as null), computed straight from the JSON.
enum StoredJSON {
    /// nil when the properties path must decide: a blob dictionary (its stored form is
    /// the blob's) or content nested deeper than ``Property/maximumDepth`` (refused).
    static func normalized(_ object: OrderedObject, depth: Int) -> OrderedObject? {
        guard object.count > 0 else { return object }
        guard depth < Property.maximumDepth else { return nil }
        var entries: [(key: String, value: AnyValue)] = []
        entries.reserveCapacity(object.count)
        for (key, value) in object {
            guard let stored = normalized(value, depth: depth) else { return nil }
            entries.append((key, stored))
        }
        entries.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return OrderedObject(distinctEntries: entries)
    }

    /// A value held at `depth` (the depth of its container).
    private static func normalized(_ value: AnyValue, depth: Int) -> AnyValue? {
        switch value {
        case .object(let object):
            if object[Blob.typeKey] != nil, Blob(stored: object, store: nil) != nil { return nil }
            return normalized(object, depth: depth + 1).map(AnyValue.object)
        case .array(let items):
            guard !items.isEmpty else { return value }
            guard depth + 1 < Property.maximumDepth else { return nil }
            var result: [AnyValue] = []
            result.reserveCapacity(items.count)
            for item in items {
                guard let stored = normalized(item, depth: depth + 1) else { return nil }
                result.append(stored)
            }
            return .array(result)
        case .undefined:
            return .null
        default:
            return value
        }
    }
}
