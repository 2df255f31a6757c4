import AccordCRDT

/// A document's content as the dashboard's tree shows it: every root with its kind,
/// maps and arrays with their children, texts as Quill deltas (formatting kept), XML as
/// its markup, counters (maps laid out as ``YCounter``) with their sum.
///
/// Nodes are `{"type": "map"|"array"|"text"|"xml"|"value"|"subdocument", ...}`. Built
/// from a copy of the document: reading an update's roots fixes their kinds
/// (`getMap`, `getText`), which must never happen to the copy clients sync with.
enum ContentTree {
    /// Children listed per map or array at most; the rest is counted in `more`.
    static let maxChildren = 500
    /// Deeper nesting is cut (shown as `{"type": "cut"}`): the page stays readable and
    /// a hostile document cannot exhaust the stack.
    static let maxDepth = 64

    /// The tree of the document whose state is `update`.
    static func json(ofUpdate update: [UInt8]) throws(AccordError) -> AnyValue {
        let copy = Doc()
        try copy.applyUpdate(update)
        return .array(copy.rootNames.map { name in
            .object(OrderedObject([("name", .string(name)), ("node", root(name, in: copy))]))
        })
    }

    private static func root(_ name: String, in doc: Doc) -> AnyValue {
        switch doc.rootKind(name: name) {
        case .map?: if let map = try? doc.getMap(name) { return node(.map(map), depth: 0) }
        case .text?, .xmlText?: if let text = try? doc.getText(name) { return node(.text(text), depth: 0) }
        case .xmlFragment?, .xmlElement?, .xmlHook?:
            if let xml = try? doc.getXmlFragment(name) { return node(.xml(xml), depth: 0) }
        case .array?, .other?: if let array = try? doc.getArray(name) { return node(.array(array), depth: 0) }
        case nil: break
        }
        return .object(OrderedObject([("type", .string("value")), ("value", doc.inferredRootJSON(name: name) ?? .null)]))
    }

    private static func node(_ value: YValue, depth: Int) -> AnyValue {
        guard depth < maxDepth else { return .object(OrderedObject([("type", .string("cut"))])) }
        switch value {
        case .value(let plain):
            return .object(OrderedObject([("type", .string("value")), ("value", plain)]))
        case .text(let text):
            return .object(OrderedObject([("type", .string("text")), ("delta", .array(text.delta.map(\.json)))]))
        case .xml(let xml):
            return .object(OrderedObject([("type", .string("xml")), ("xml", .string(xml.xmlString))]))
        case .subdocument(let guid):
            return .object(OrderedObject([("type", .string("subdocument")), ("guid", .string(guid))]))
        case .array(let array):
            let elements = array.elements
            var fields: [(String, AnyValue)] = [
                ("type", .string("array")),
                ("items", .array(elements.prefix(maxChildren).map { node($0, depth: depth + 1) })),
            ]
            if elements.count > maxChildren { fields.append(("more", .int(Int64(elements.count - maxChildren)))) }
            return .object(OrderedObject(fields))
        case .map(let map):
            let entries = map.entries
            var fields: [(String, AnyValue)] = [
                ("type", .string("map")),
                ("entries", .array(entries.prefix(maxChildren).map { entry in
                    .object(OrderedObject([("key", .string(entry.key)), ("node", node(entry.value, depth: depth + 1))]))
                })),
            ]
            if entries.count > maxChildren { fields.append(("more", .int(Int64(entries.count - maxChildren)))) }
            if let sum = counterValue(entries) { fields.append(("counter", .int(sum))) }
            return .object(OrderedObject(fields))
        }
    }

    /// The sum when the map has ``YCounter``'s layout (decimal client-id keys, integral
    /// values), nil otherwise.
    private static func counterValue(_ entries: [(key: String, value: YValue)]) -> Int64? {
        guard !entries.isEmpty else { return nil }
        var sum: Int64 = 0
        for entry in entries {
            guard !entry.key.isEmpty, entry.key.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            switch entry.value {
            case .value(.int(let n)): sum = sum &+ n
            case .value(.double(let d)) where d.rounded() == d && abs(d) < 9e15: sum = sum &+ Int64(d)
            default: return nil
            }
        }
        return sum
    }
}
