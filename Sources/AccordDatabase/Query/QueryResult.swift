import AccordCRDT

/// One document a query found.
public struct QueryResult {
    public let document: Document
    /// The collection's name: the key of the whole-document JSON shape.
    public let collectionName: String
    let select: [KeyPath]?

    public var id: String { document.id }

    /// As Couchbase Lite's results: the whole document under the collection's name
    /// (`{"tasks": {...}}`) when no properties were selected, else each selected key
    /// path's value under its last key (`{"city": "Paris"}`), absent values left out.
    public func toJSON() -> String {
        let content = (try? document.json(depth: 0)).flatMap(\.objectValue) ?? OrderedObject()
        guard let select else { return AnyValue.object(OrderedObject([(collectionName, .object(content))])).jsonText }
        var entries: [(String, AnyValue)] = []
        for path in select {
            guard let value = path.value(in: content, id: document.id) else { continue }
            entries.append((path.components.last ?? path.text, value))
        }
        return AnyValue.object(OrderedObject(entries)).jsonText
    }
}
