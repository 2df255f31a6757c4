import AccordCRDT

/// The kind of a root type.
public enum RootKind: String, Sendable, Hashable {
    case text, map, array
}

/// A shared type inside a document: a root, then map keys and array indices.
public struct EditTarget: Hashable, Sendable, CustomStringConvertible {
    public var root: String
    public var rootKind: RootKind
    public var path: [PathSegment]

    public init(root: String, rootKind: RootKind, path: [PathSegment] = []) {
        self.root = root
        self.rootKind = rootKind
        self.path = path
    }

    public var description: String {
        root + path.map { segment in
            switch segment {
            case .key(let k): "." + k
            case .index(let i): "[\(i)]"
            }
        }.joined()
    }
}

/// A value written into a map or array: a plain value, or a new nested shared type with
/// some plain initial content.
public enum EditValue: Hashable, Sendable, CustomStringConvertible {
    case plain(AnyValue)
    case map(OrderedObject)
    case array([AnyValue])
    case text(String)

    public var description: String {
        switch self {
        case .plain(let v): v.jsonText
        case .map(let o): "Map(\(AnyValue.object(o).jsonText))"
        case .array(let a): "Array(\(AnyValue.array(a).jsonText))"
        case .text(let s): "Text(\(AnyValue.string(s).jsonText))"
        }
    }
}

/// One edit, described independently of the engine that performs it, so the same
/// operation can run on an Accord ``Doc`` and on a pycrdt replica. Text indices and
/// lengths are UTF-16 code units.
public enum EditOperation: Hashable, Sendable, CustomStringConvertible {
    /// Insert text; nil attributes take the formatting in effect at `index`.
    case textInsert(EditTarget, index: Int, text: String, attributes: OrderedObject?)
    case textDelete(EditTarget, index: Int, length: Int)
    case textFormat(EditTarget, index: Int, length: Int, attributes: OrderedObject)
    case mapSet(EditTarget, key: String, value: EditValue)
    case mapDelete(EditTarget, key: String)
    case arrayInsert(EditTarget, index: Int, values: [EditValue])
    case arrayDelete(EditTarget, index: Int, length: Int)

    public var target: EditTarget {
        switch self {
        case .textInsert(let t, _, _, _), .textDelete(let t, _, _), .textFormat(let t, _, _, _),
             .mapSet(let t, _, _), .mapDelete(let t, _), .arrayInsert(let t, _, _), .arrayDelete(let t, _, _):
            t
        }
    }

    public var description: String {
        switch self {
        case .textInsert(let t, let i, let s, let a):
            "\(t).insert(\(i), \(AnyValue.string(s).jsonText)\(a.map { ", " + AnyValue.object($0).jsonText } ?? ""))"
        case .textDelete(let t, let i, let n): "\(t).delete(\(i), \(n))"
        case .textFormat(let t, let i, let n, let a): "\(t).format(\(i), \(n), \(AnyValue.object(a).jsonText))"
        case .mapSet(let t, let k, let v): "\(t).set(\(k), \(v))"
        case .mapDelete(let t, let k): "\(t).delete(\(k))"
        case .arrayInsert(let t, let i, let vs): "\(t).insert(\(i), \(vs))"
        case .arrayDelete(let t, let i, let n): "\(t).delete(\(i), \(n))"
        }
    }
}

/// Why an ``EditOperation`` could not be performed.
public struct EditFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension Doc {
    /// Performs `operation` in one transaction (or inside the current one).
    /// - Throws: ``EditFailure`` when the target does not exist or has another kind;
    ///   ``AccordError`` from the edit itself.
    public func perform(_ operation: EditOperation, origin: Origin? = nil) throws {
        try transact(origin: origin) {
            let target = try resolve(operation.target)
            switch operation {
            case .textInsert(_, let index, let text, let attributes):
                let t = try Self.expect(target.text, operation)
                if let attributes { try t.insert(index, text, attributes: attributes) } else { try t.insert(index, text) }
            case .textDelete(_, let index, let length):
                try Self.expect(target.text, operation).delete(index, length)
            case .textFormat(_, let index, let length, let attributes):
                try Self.expect(target.text, operation).format(index, length, attributes)
            case .mapSet(_, let key, let value):
                let m = try Self.expect(target.map, operation)
                switch value {
                case .plain(let v): try m.set(key, v)
                case .map(let initial):
                    let inner = try m.setMap(key)
                    for (k, v) in initial { try inner.set(k, v) }
                case .array(let initial): try m.setArray(key).insert(0, initial)
                case .text(let initial): try m.setText(key).insert(0, initial)
                }
            case .mapDelete(_, let key):
                try Self.expect(target.map, operation).delete(key)
            case .arrayInsert(_, let index, let values):
                let a = try Self.expect(target.array, operation)
                var i = index
                var run: [AnyValue] = []
                func flush() throws {
                    try a.insert(i, run)
                    i += run.count
                    run = []
                }
                for value in values {
                    if case .plain(let v) = value { run.append(v); continue }
                    try flush()
                    switch value {
                    case .plain: break
                    case .map(let initial):
                        let inner = try a.insertMap(i)
                        for (k, v) in initial { try inner.set(k, v) }
                    case .array(let initial): try a.insertArray(i).insert(0, initial)
                    case .text(let initial): try a.insertText(i).insert(0, initial)
                    }
                    i += 1
                }
                try flush()
            case .arrayDelete(_, let index, let length):
                try Self.expect(target.array, operation).delete(index, count: length)
            }
        }
    }

    /// The shared type `target` names.
    public func resolve(_ target: EditTarget) throws -> YValue {
        var value: YValue
        switch target.rootKind {
        case .text: value = .text(try getText(target.root))
        case .map: value = .map(try getMap(target.root))
        case .array: value = .array(try getArray(target.root))
        }
        for segment in target.path {
            switch segment {
            case .key(let k):
                guard let next = value.map?.get(k) else { throw EditFailure("\(target): no map key \(k)") }
                value = next
            case .index(let i):
                guard let a = value.array, i >= 0, i < a.count else { throw EditFailure("\(target): no array index \(i)") }
                value = try a.get(i)
            }
        }
        return value
    }

    private static func expect<T>(_ value: T?, _ operation: EditOperation) throws -> T {
        guard let value else { throw EditFailure("\(operation): the target has another kind") }
        return value
    }
}
