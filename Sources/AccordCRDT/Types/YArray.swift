/// A shared list of values and nested types (Yjs `Y.Array`).
public struct YArray {
    let doc: Doc
    let type: Int32

    /// Number of elements.
    public var count: Int { doc.store.types[Int(type)].length }

    /// Every element in order.
    public var elements: [YValue] { doc.listValues(type: type) }

    /// The element at `index`.
    /// - Throws: ``ErrorCode/indexOutOfBounds``.
    public func get(_ index: Int) throws(AccordError) -> YValue {
        guard index >= 0, index < count else {
            throw AccordError(.indexOutOfBounds, "index \(index) is outside 0..<\(count)")
        }
        let (ref, before) = doc.store.seek(type: type, index: index)
        return doc.values(of: ref)[index - before]
    }

    /// Inserts plain values at `index`.
    public func insert(_ index: Int, _ values: [AnyValue]) throws(AccordError) {
        guard !values.isEmpty else { return }
        _ = try doc.listInsert(type: type, at: index, Doc.contents(for: values))
    }

    /// Appends plain values.
    public func append(_ values: [AnyValue]) throws(AccordError) { try insert(count, values) }

    /// Inserts a new, empty nested map at `index` and returns it.
    @discardableResult
    public func insertMap(_ index: Int) throws(AccordError) -> YMap { YMap(doc: doc, type: try nested(index, .map)) }

    /// Inserts a new, empty nested array at `index` and returns it.
    @discardableResult
    public func insertArray(_ index: Int) throws(AccordError) -> YArray { YArray(doc: doc, type: try nested(index, .array)) }

    /// Inserts a new, empty nested text at `index` and returns it.
    @discardableResult
    public func insertText(_ index: Int) throws(AccordError) -> YText { YText(doc: doc, type: try nested(index, .text)) }

    private func nested(_ index: Int, _ kind: TypeKind) throws(AccordError) -> Int32 {
        let refs = try doc.listInsert(type: type, at: index, [.type(kind)])
        return Int32(doc.store.items[Int(refs[0])].a)
    }

    /// Deletes `count` elements from `index`.
    public func delete(_ index: Int, count: Int = 1) throws(AccordError) {
        try doc.listDelete(type: type, at: index, count: count)
    }

    /// The JSON view of the array and everything nested in it.
    public var json: AnyValue { json(depth: 0) }

    func json(depth: Int) -> AnyValue { .array(elements.map { $0.json(depth: depth) }) }

    public func observe(_ handler: @escaping (YEvent) -> Void) -> Subscription {
        doc.addObserver(type: type, handler)
    }

    public func observeDeep(_ handler: @escaping ([YEvent]) -> Void) -> Subscription {
        doc.addDeepObserver(type: type, handler)
    }
}
