import AccordCRDT

/// Writes a document's changes into its CRDT map as edits, so replicas merge them key
/// by key: only the keys whose value differs from the base (the content the document
/// was read with) are written; a dictionary changed on both sides is edited in place as
/// a nested map, at any depth; an array changed on both sides is edited as a list
/// (the changed middle between an unchanged prefix and suffix is deleted and
/// re-inserted), when the stored list still equals the base; otherwise (another writer
/// changed it since) the array is replaced by this one as a whole.
enum CRDTWriter {
    /// Applies base → current onto `map`. Keys removed since the base are deleted.
    static func apply(from base: OrderedObject, to current: OrderedObject, onto map: YMap) throws(AccordError) {
        for (key, value) in current {
            let old = base[key]
            if old == value { continue }
            try write(value, old: old, key: key, into: map)
        }
        for key in base.keys where current[key] == nil && map.contains(key) {
            try map.delete(key)
        }
    }

    /// Fills an empty map with `object` (a new document, or one recreated after a delete).
    static func fill(_ map: YMap, with object: OrderedObject) throws(AccordError) {
        for (key, value) in object { try set(value, key: key, into: map) }
    }

    private static func write(_ value: AnyValue, old: AnyValue?, key: String, into map: YMap) throws(AccordError) {
        switch (value, old, map[key]) {
        case (.object(let new), .object(let previous), .map(let nested)?):
            try apply(from: previous, to: new, onto: nested)
        case (.array(let new), .array(let previous), .array(let list)?) where list.json == .array(previous):
            try edit(list, from: previous, to: new)
        default:
            try set(value, key: key, into: map)
        }
    }

    private static func set(_ value: AnyValue, key: String, into map: YMap) throws(AccordError) {
        switch value {
        case .object(let object): try fill(try map.setMap(key), with: object)
        case .array(let items): try fill(try map.setArray(key), with: items)
        default: try map.set(key, value)
        }
    }

    private static func fill(_ list: YArray, with items: [AnyValue]) throws(AccordError) {
        try insert(items[...], at: 0, into: list)
    }

    /// Inserts runs of scalars in one call each; dictionaries and arrays become nested types.
    private static func insert(_ items: ArraySlice<AnyValue>, at start: Int, into list: YArray) throws(AccordError) {
        var index = start
        var run: [AnyValue] = []
        func flush() throws(AccordError) {
            guard !run.isEmpty else { return }
            try list.insert(index, run)
            index += run.count
            run.removeAll()
        }
        for item in items {
            switch item {
            case .object(let object):
                try flush()
                try fill(try list.insertMap(index), with: object)
                index += 1
            case .array(let nested):
                try flush()
                try fill(try list.insertArray(index), with: nested)
                index += 1
            default:
                run.append(item)
            }
        }
        try flush()
    }

    /// Replaces the changed middle of a list whose content equals `old`.
    private static func edit(_ list: YArray, from old: [AnyValue], to new: [AnyValue]) throws(AccordError) {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
            old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        let removed = old.count - prefix - suffix
        if removed > 0 { try list.delete(prefix, count: removed) }
        try insert(new[prefix..<(new.count - suffix)], at: prefix, into: list)
    }
}
