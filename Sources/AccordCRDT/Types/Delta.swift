/// What a delta insert carries.
public enum DeltaContent {
    /// Text (in a ``YText``).
    case text(String)
    /// An embed in a text (an image, a formula: any JSON-like value).
    case embed(AnyValue)
    /// A nested type inside a text.
    case type(YValue)
    /// Elements (in a ``YArray``).
    case values([YValue])
}

/// One operation of a delta (Quill's format): the change to a text or array, or, with
/// inserts only, its content.
public enum DeltaOp {
    case insert(DeltaContent, attributes: OrderedObject? = nil)
    case retain(Int, attributes: OrderedObject? = nil)
    case delete(Int)

    /// The JSON form Yjs uses: `{"insert": ..., "attributes": {...}}`,
    /// `{"retain": n}`, `{"delete": n}`.
    public var json: AnyValue {
        var o = OrderedObject()
        switch self {
        case .insert(let content, let attributes):
            switch content {
            case .text(let s): o["insert"] = .string(s)
            case .embed(let v): o["insert"] = v
            case .type(let t): o["insert"] = t.json
            case .values(let vs): o["insert"] = .array(vs.map(\.json))
            }
            if let attributes, attributes.count > 0 { o["attributes"] = .object(attributes) }
        case .retain(let n, let attributes):
            o["retain"] = .int(Int64(n))
            if let attributes, attributes.count > 0 { o["attributes"] = .object(attributes) }
        case .delete(let n):
            o["delete"] = .int(Int64(n))
        }
        return .object(o)
    }
}
