/// Reading root types that only updates have named (tools such as `accord yjs inspect`).
///
/// An update names its roots but not their kinds: in Yjs the kind is fixed when app code
/// first calls `getText`, `getMap` or `getArray`. A tool that reads someone else's
/// updates has no such code, so it guesses the kind from the content, the way a person
/// reading the structs would. These reads never fix the kind, so a later `getText` (or
/// `getMap`, `getArray`) on the same document still works.
extension Doc {
    /// The kind of root `name`: the one given through the API when there is one, else
    /// the one its content suggests (see ``inferredRootJSON(name:)``).
    /// - Returns: nil when no root of that name exists in this document.
    public func rootKind(name: String) -> TypeKind? {
        guard let t = store.roots[name] else { return nil }
        return store.types[Int(t)].kind ?? inferredKind(of: t)
    }

    /// The JSON view of root `name`, read as the kind ``rootKind(name:)`` gives:
    /// - a root with map entries is a map: an object of its current values;
    /// - a root holding text, formatting marks or embeds is a text:
    ///   `{"string": plain text, "delta": [Quill insert ops]}`;
    /// - an XML fragment (when known from the API) is its XML string;
    /// - anything else is an array of its elements (so is a root whose content was all
    ///   deleted and collected: nothing is left to tell what it was).
    /// - Returns: nil when no root of that name exists in this document.
    public func inferredRootJSON(name: String) -> AnyValue? {
        guard let t = store.roots[name], let kind = rootKind(name: name) else { return nil }
        switch kind {
        case .map:
            return YMap(doc: self, type: t).json
        case .text, .xmlText:
            let text = YText(doc: self, type: t)
            return .object(OrderedObject([
                ("string", .string(text.string)),
                ("delta", .array(text.delta.map(\.json))),
            ]))
        case .xmlFragment, .xmlElement, .xmlHook:
            return .string(YXml(doc: self, type: t).xmlString)
        case .array, .other:
            return YArray(doc: self, type: t).json
        }
    }

    /// Map entries win (a Y.Text never has any); then the first item whose content only
    /// a text can hold decides; everything else reads as an array.
    func inferredKind(of t: Int32) -> TypeKind {
        let record = store.types[Int(t)]
        if !record.map.isEmpty { return .map }
        var ref = record.start
        while ref != noItem {
            let item = store.items[Int(ref)]
            switch item.kind {
            case .string, .format, .embed: return .text
            default: ref = item.right
            }
        }
        return .array
    }
}
