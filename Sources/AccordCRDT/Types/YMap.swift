/// A shared map from string keys to values or nested types (Yjs `Y.Map`).
///
/// Concurrent writes to one key resolve the same way on every replica: the write from
/// the higher client ID wins.
public struct YMap {
    let doc: Doc
    let type: Int32

    /// Number of keys with a value.
    public var count: Int {
        var count = 0
        forEachEntry { _, _ in count += 1 }
        return count
    }

    /// The keys with a value, sorted.
    public var keys: [String] { entries.map(\.key) }

    /// The current value of `key`, or nil when absent.
    public subscript(key: String) -> YValue? { self.get(key) }

    public func get(_ key: String) -> YValue? {
        guard let ref = doc.store.mapEntry(type, key: key), !doc.store.items[Int(ref)].deleted else { return nil }
        return doc.lastValue(of: ref)
    }

    public func contains(_ key: String) -> Bool { get(key) != nil }

    /// Whether `key` has an entry at all: a value, or one since deleted. Yjs's map rule
    /// gives a new value for such a key the entry as its origin; only a key that never
    /// had one can take a value written without the document (no origin).
    public func hasEntry(_ key: String) -> Bool {
        doc.store.mapEntry(type, key: key) != nil
    }

    /// Every key with its value, sorted by key.
    public var entries: [(key: String, value: YValue)] {
        let store = doc.store
        return store.types[Int(type)].map.compactMap { (k, ref) -> (String, YValue)? in
            guard !store.items[Int(ref)].deleted, let v = doc.lastValue(of: ref) else { return nil }
            return (store.keys[Int(k)], v)
        }.sorted { $0.0 < $1.0 }
    }

    /// Calls `body` with every key that has a value, in no particular order: for readers
    /// that order by their own rule (or not at all) and need not pay for the sort.
    public func forEachEntry(_ body: (_ key: String, _ value: YValue) throws -> Void) rethrows {
        let store = doc.store
        for (k, ref) in store.types[Int(type)].map where !store.items[Int(ref)].deleted {
            guard let value = doc.lastValue(of: ref) else { continue }
            try body(store.keys[Int(k)], value)
        }
    }

    /// Sets `key` to a plain value.
    /// - Throws: ``ErrorCode/invalidType`` when this map was deleted.
    public func set(_ key: String, _ value: AnyValue) throws(AccordError) {
        if case .bytes = value {
            try doc.mapSet(type: type, key: key, Doc.content(for: value))
        } else {
            try doc.mapSetValue(type: type, key: key, value)
        }
    }

    /// Sets `key` to a new, empty nested map and returns it.
    @discardableResult
    public func setMap(_ key: String) throws(AccordError) -> YMap {
        YMap(doc: doc, type: try nested(key, .map))
    }

    /// Sets `key` to a new, empty nested array and returns it.
    @discardableResult
    public func setArray(_ key: String) throws(AccordError) -> YArray {
        YArray(doc: doc, type: try nested(key, .array))
    }

    /// Sets `key` to a new, empty nested text and returns it.
    @discardableResult
    public func setText(_ key: String) throws(AccordError) -> YText {
        YText(doc: doc, type: try nested(key, .text))
    }

    private func nested(_ key: String, _ kind: TypeKind) throws(AccordError) -> Int32 {
        let ref = try doc.mapSet(type: type, key: key, .type(kind))
        return Int32(doc.store.items[Int(ref)].a)
    }

    /// Removes `key` (nothing happens when it is absent).
    public func delete(_ key: String) throws(AccordError) {
        try doc.mapDelete(type: type, key: key)
    }

    /// The JSON view of the map and everything nested in it.
    public var json: AnyValue { json(depth: 0) }

    func json(depth: Int) -> AnyValue {
        .object(OrderedObject(entries.map { ($0.key, $0.value.json(depth: depth)) }))
    }

    /// Calls `handler` after each transaction that changed this map's keys.
    public func observe(_ handler: @escaping (YEvent) -> Void) -> Subscription {
        doc.addObserver(type: type, handler)
    }

    /// Calls `handler` after each transaction that changed this map or anything in it.
    public func observeDeep(_ handler: @escaping ([YEvent]) -> Void) -> Subscription {
        doc.addDeepObserver(type: type, handler)
    }
}
