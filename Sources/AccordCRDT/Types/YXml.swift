/// An XML node received from a peer (element, fragment, hook or XML text).
///
/// This handle reads any XML node; fragments, elements and XML texts are edited with
/// Yjs's API (`YXml+Editing.swift`). Hooks are kept and re-encoded unchanged.
public struct YXml {
    let doc: Doc
    let type: Int32

    /// The node's kind as written on the wire.
    public var kind: TypeKind? { doc.store.types[Int(type)].kind }

    /// Attributes of an element (its map entries).
    public var attributes: [String: AnyValue] {
        var out: [String: AnyValue] = [:]
        for (k, ref) in doc.store.types[Int(type)].map where !doc.store.items[Int(ref)].deleted {
            if case .value(let v)? = doc.values(of: ref).last { out[doc.store.keys[Int(k)]] = v }
        }
        return out
    }

    /// Child nodes (or, for XML text, the content items) in order.
    public var children: [YValue] { doc.listValues(type: type) }

    /// The node as XML text, the way Yjs's `toString()` writes it.
    public var xmlString: String { xmlString(depth: 0) }

    func xmlString(depth: Int) -> String {
        guard depth < YValue.maxViewDepth else { return "" }
        switch kind {
        case .xmlElement(let name):
            let attrs = attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\"\(Self.plain($0.value))\"" }
            let lower = name.lowercased()
            return "<\(lower)\(attrs.isEmpty ? "" : " " + attrs.joined(separator: " "))>\(childrenString(depth: depth))</\(lower)>"
        case .xmlText:
            return YText(doc: doc, type: type).delta.map { op -> String in
                guard case .insert(let content, let attributes) = op else { return "" }
                let inner: String
                switch content {
                case .text(let s): inner = s
                case .embed(let v): inner = Self.plain(v)
                case .type(let t): inner = t.json(depth: depth + 1).stringValue ?? ""
                case .values: inner = ""
                }
                let nodes = (attributes ?? [:]).entries.sorted { $0.key < $1.key }
                var s = ""
                for (name, attrs) in nodes {
                    s += "<\(name)"
                    if case .object(let o) = attrs {
                        for (k, v) in o.entries.sorted(by: { $0.key < $1.key }) { s += " \(k)=\"\(Self.plain(v))\"" }
                    }
                    s += ">"
                }
                s += inner
                for (name, _) in nodes.reversed() { s += "</\(name)>" }
                return s
            }.joined()
        default:
            return childrenString(depth: depth)
        }
    }

    private func childrenString(depth: Int) -> String {
        children.map { child -> String in
            switch child {
            case .xml(let x): x.xmlString(depth: depth + 1)
            case .text(let t): t.string
            default: Self.plain(child.json(depth: depth + 1))
            }
        }.joined()
    }

    /// How JavaScript's string conversion shows a value inside XML text.
    private static func plain(_ v: AnyValue) -> String {
        if case .string(let s) = v { return s }
        return v.jsonText
    }
}
