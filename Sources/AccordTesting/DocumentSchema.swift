import AccordCRDT

/// The root types a randomized test edits, and the naming convention that lets a plain
/// JSON view say which values are nested shared types.
///
/// pycrdt's JSON view of a nested map looks like a plain object, and a nested text like a
/// plain string. So editors follow a convention: in maps, keys starting with `m` hold
/// nested maps, `a` nested arrays, `t` nested texts, any other key plain values; in arrays,
/// an object is a nested map, an array a nested array, and plain elements are never
/// objects or arrays.
public struct DocumentSchema: Sendable {
    public struct Root: Sendable, Hashable {
        public var name: String
        public var kind: RootKind
        public init(_ name: String, _ kind: RootKind) {
            self.name = name
            self.kind = kind
        }
    }

    public var roots: [Root]

    public init(roots: [Root]) { self.roots = roots }

    /// A text `t`, a map `m` and an array `a`.
    public static let standard = DocumentSchema(roots: [Root("t", .text), Root("m", .map), Root("a", .array)])

    /// The kind of shared type a map key holds by convention; nil for plain values.
    public static func nestedKind(ofKey key: String) -> RootKind? {
        switch key.first {
        case "m": .map
        case "a": .array
        case "t": .text
        default: nil
        }
    }

    /// What editors look at: each root's JSON, a text root as its plain string.
    public func editView(of doc: Doc) throws -> [String: AnyValue] {
        var view: [String: AnyValue] = [:]
        for root in roots {
            switch root.kind {
            case .text: view[root.name] = .string(try doc.getText(root.name).string)
            case .map: view[root.name] = Self.portable(try doc.getMap(root.name).json)
            case .array: view[root.name] = Self.portable(try doc.getArray(root.name).json)
            }
        }
        return view
    }

    /// What replicas are compared on: a text root as `{"string": s, "delta": [[insert,
    /// attributes or null], ...]}` (the pycrdt peer's form, runs normalized), maps and
    /// arrays as JSON with byte arrays as `{"$bytes": hex}`.
    public func comparableJSON(of doc: Doc) throws -> AnyValue {
        var out = OrderedObject()
        for root in roots {
            switch root.kind {
            case .text:
                let t = try doc.getText(root.name)
                out[root.name] = Self.textJSON(string: t.string, delta: t.delta)
            case .map: out[root.name] = Self.portable(try doc.getMap(root.name).json)
            case .array: out[root.name] = Self.portable(try doc.getArray(root.name).json)
            }
        }
        return .object(out)
    }

    /// The comparable JSON of a text from its string and delta.
    public static func textJSON(string: String, delta: [DeltaOp]) -> AnyValue {
        let runs: [AnyValue] = delta.compactMap { op in
            guard case .insert(let content, let attributes) = op else { return nil }
            let insert: AnyValue
            switch content {
            case .text(let s): insert = .string(s)
            case .embed(let v): insert = portable(v)
            case .type(let v): insert = portable(v.json)
            case .values(let vs): insert = .array(vs.map { portable($0.json) })
            }
            return .array([insert, attributes.map { .object($0) } ?? .null])
        }
        return .object(["string": .string(string), "delta": normalizedDelta(.array(runs))])
    }

    /// Joins neighbouring text runs whose attributes are equal and writes empty
    /// attributes as null, so that two engines' ways of cutting runs compare equal.
    public static func normalizedDelta(_ delta: AnyValue) -> AnyValue {
        guard case .array(let runs) = delta else { return delta }
        var out: [(insert: AnyValue, attributes: AnyValue)] = []
        for run in runs {
            guard case .array(let pair) = run, pair.count == 2 else { return delta }
            var attributes = pair[1]
            if case .object(let o) = attributes, o.count == 0 { attributes = .null }
            if case .string(let s) = pair[0], let last = out.last, case .string(let previous) = last.insert,
               LooseJSON.equal(last.attributes, attributes) {
                out[out.count - 1].insert = .string(previous + s)
                continue
            }
            out.append((pair[0], attributes))
        }
        return .array(out.map { .array([$0.insert, $0.attributes]) })
    }

    /// The peer's JSON reply made comparable: text deltas normalized.
    public func normalizedPeerJSON(_ json: AnyValue) -> AnyValue {
        guard case .object(var o) = json else { return json }
        for root in roots where root.kind == .text {
            guard case .object(var t)? = o[root.name], let delta = t["delta"] else { continue }
            t["delta"] = Self.normalizedDelta(delta)
            o[root.name] = .object(t)
        }
        return .object(o)
    }

    /// Byte arrays as `{"$bytes": hex}`, the form the pycrdt peer uses.
    public static func portable(_ value: AnyValue) -> AnyValue {
        switch value {
        case .bytes(let b): .object(["$bytes": .string(Hex.encode(b))])
        case .array(let a): .array(a.map(portable))
        case .object(let o): .object(OrderedObject(o.map { ($0.key, portable($0.value)) }))
        default: value
        }
    }
}
