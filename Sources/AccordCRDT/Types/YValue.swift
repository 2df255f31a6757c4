/// What a map entry or array element holds: a plain value or a nested shared type.
public enum YValue {
    case value(AnyValue)
    case text(YText)
    case map(YMap)
    case array(YArray)
    /// An XML node (element, fragment, hook or XML text): preserved, read-only for now.
    case xml(YXml)
    /// A sub-document reference, by GUID.
    case subdocument(guid: String)

    /// The JSON view: nested types become strings, objects and arrays.
    public var json: AnyValue { json(depth: 0) }

    /// Views nest as deep as the types do, and an update can nest types arbitrarily
    /// deep: past this depth a view shows `null` instead of exhausting the stack.
    static let maxViewDepth = 256

    func json(depth: Int) -> AnyValue {
        guard depth < Self.maxViewDepth else { return .null }
        switch self {
        case .value(let v): return v
        case .text(let t): return .string(t.string)
        case .map(let m): return m.json(depth: depth + 1)
        case .array(let a): return a.json(depth: depth + 1)
        case .xml(let x): return .string(x.xmlString(depth: depth + 1))
        case .subdocument(let guid): return .object(["guid": .string(guid)])
        }
    }

    public var text: YText? { if case .text(let t) = self { t } else { nil } }
    public var map: YMap? { if case .map(let m) = self { m } else { nil } }
    public var array: YArray? { if case .array(let a) = self { a } else { nil } }
    public var value: AnyValue? { if case .value(let v) = self { v } else { nil } }
}

extension Doc {
    /// The handle for type `t` as a ``YValue``.
    func typeValue(_ t: Int32) -> YValue {
        switch store.types[Int(t)].kind {
        case .text: .text(YText(doc: self, type: t))
        case .array: .array(YArray(doc: self, type: t))
        case .map: .map(YMap(doc: self, type: t))
        case .xmlText, .xmlElement, .xmlFragment, .xmlHook, .other, nil: .xml(YXml(doc: self, type: t))
        }
    }

    /// Every visible element of a type's list part, in order.
    func listValues(type t: Int32) -> [YValue] {
        var out: [YValue] = []
        var ref = store.types[Int(t)].start
        while ref != noItem {
            let item = store.items[Int(ref)]
            if !item.deleted, item.isCountable { out.append(contentsOf: values(of: ref)) }
            ref = item.right
        }
        return out
    }

    /// The values held by a countable item, in order.
    func values(of ref: ItemRef) -> [YValue] {
        let item = store.items[Int(ref)]
        switch item.kind {
        case .any, .json: return store.values(of: item).map { .value($0) }
        case .string: return [.value(.string(String(decoding: store.string(of: item), as: UTF16.self)))]
        case .binary:
            if case .binary(let b) = store.payloads[Int(item.a)] { return [.value(.bytes(b))] }
            return []
        case .embed:
            if case .embed(let v) = store.payloads[Int(item.a)] { return [.value(v)] }
            return []
        case .doc:
            if case .doc(let guid, _) = store.payloads[Int(item.a)] { return [.subdocument(guid: guid)] }
            return []
        case .type: return [typeValue(Int32(item.a))]
        case .format, .deleted, .gc: return []
        }
    }

    /// The last value a countable item holds: a map entry's value. Reads it in place,
    /// without the array ``values(of:)`` builds, since map reads are hot (records).
    func lastValue(of ref: ItemRef) -> YValue? {
        let item = store.items[Int(ref)]
        switch item.kind {
        case .any, .json: return store.values(of: item).last.map { .value($0) }
        default: return values(of: ref).last
        }
    }

    /// Wire content for a plain value set in a map: bytes travel as ContentBinary, as in Yjs.
    static func content(for value: AnyValue) -> StructContent {
        if case .bytes(let b) = value { return .binary(b) }
        return .any([value])
    }

    /// Groups array values into items the way Yjs does: runs of plain values share one
    /// Any item, each byte array is its own Binary item.
    static func contents(for values: [AnyValue]) -> [StructContent] {
        var out: [StructContent] = []
        var run: [AnyValue] = []
        for v in values {
            if case .bytes(let b) = v {
                if !run.isEmpty { out.append(.any(run)); run = [] }
                out.append(.binary(b))
            } else {
                run.append(v)
            }
        }
        if !run.isEmpty { out.append(.any(run)) }
        return out
    }
}
