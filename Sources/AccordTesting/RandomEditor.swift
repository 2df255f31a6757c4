import AccordCRDT

/// Draws random ``EditOperation``s that are valid on a replica, given its JSON view
/// (``DocumentSchema/editView(of:)`` or the pycrdt peer's JSON, text roots as strings).
///
/// Text: inserts of ASCII, accented, CJK, combining and emoji text (surrogate pairs,
/// ZWJ sequences), with or without attributes; deletes; formats (bold, italic, color,
/// link, size, and null to remove). Indices never fall inside a surrogate pair.
/// Maps: sets of plain values and of nested maps, arrays and texts; deletes.
/// Arrays: inserts of plain values and nested maps and arrays; deletes.
/// Keys follow the convention of ``DocumentSchema``.
public struct RandomEditor: Sendable {
    public var schema: DocumentSchema
    /// Nested types are created only where the path is shorter than this.
    public var maxDepth: Int
    /// Whether plain values may be byte arrays.
    public var allowsBytes: Bool

    public init(schema: DocumentSchema = .standard, maxDepth: Int = 3, allowsBytes: Bool = true) {
        self.schema = schema
        self.maxDepth = maxDepth
        self.allowsBytes = allowsBytes
    }

    static let snippets: [String] = [
        "a", "b", "hello", "xyz ", " ", "\n", "é", "e\u{301}", "日本語", "Ω", "😀", "👍🏽",
        "👨‍👩‍👧", "🇫🇷", "𝄞", "ab😀cd", "ß", "\u{200B}", "~",
    ]
    static let textKeys = ["t0", "t1"]
    static let mapKeys = ["m0", "m1"]
    static let arrayKeys = ["a0", "a1"]
    static let plainKeys = ["v0", "v1", "v2", "k"]

    private struct Container {
        var target: EditTarget
        var kind: RootKind
        var json: AnyValue
    }

    /// One random operation for a replica whose view is `view`.
    public func nextOperation<G: RandomNumberGenerator>(view: [String: AnyValue], using rng: inout G) -> EditOperation {
        var containers: [Container] = []
        for root in schema.roots {
            collect(EditTarget(root: root.name, rootKind: root.kind), root.kind, view[root.name] ?? Self.empty(root.kind), into: &containers)
        }
        // Favour text (the richest merge rules), then maps and arrays, then nested types.
        let roll = Int.random(in: 0..<100, using: &rng)
        let wanted: RootKind = roll < 45 ? .text : roll < 75 ? .map : .array
        var candidates = containers.filter { $0.kind == wanted }
        if candidates.isEmpty { candidates = containers }
        let roots = candidates.filter { $0.target.path.isEmpty }
        let chosen = (!roots.isEmpty && rng.chance(0.6)) ? roots.randomElement(using: &rng)! : candidates.randomElement(using: &rng)!
        switch chosen.kind {
        case .text: return textOperation(chosen.target, chosen.json.stringValue ?? "", &rng)
        case .map: return mapOperation(chosen.target, chosen.json.objectValue ?? [:], &rng)
        case .array: return arrayOperation(chosen.target, chosen.json.arrayValue ?? [], &rng)
        }
    }

    private static func empty(_ kind: RootKind) -> AnyValue {
        switch kind {
        case .text: .string("")
        case .map: .object(OrderedObject())
        case .array: .array([])
        }
    }

    private func collect(_ target: EditTarget, _ kind: RootKind, _ json: AnyValue, into out: inout [Container]) {
        out.append(Container(target: target, kind: kind, json: json))
        switch kind {
        case .text: break
        case .map:
            for (key, value) in json.objectValue ?? [:] {
                guard let nested = DocumentSchema.nestedKind(ofKey: key) else { continue }
                var t = target
                t.path.append(.key(key))
                collect(t, nested, value, into: &out)
            }
        case .array:
            for (i, value) in (json.arrayValue ?? []).enumerated() {
                let nested: RootKind
                switch value {
                case .object: nested = .map
                case .array: nested = .array
                default: continue
                }
                var t = target
                t.path.append(.index(i))
                collect(t, nested, value, into: &out)
            }
        }
    }

    // MARK: Text

    private func textOperation<G: RandomNumberGenerator>(_ target: EditTarget, _ string: String, _ rng: inout G) -> EditOperation {
        let units = Array(string.utf16)
        // Offsets that do not split a surrogate pair.
        var boundaries: [Int] = [0]
        for i in units.indices.dropFirst() where !(UTF16.isTrailSurrogate(units[i]) && UTF16.isLeadSurrogate(units[i - 1])) {
            boundaries.append(i)
        }
        if !units.isEmpty { boundaries.append(units.count) }
        let roll = Int.random(in: 0..<100, using: &rng)
        if units.isEmpty || roll < 50 {
            let index = boundaries.randomElement(using: &rng)!
            var text = ""
            for _ in 0..<Int.random(in: 1...3, using: &rng) { text += Self.snippets.randomElement(using: &rng)! }
            return .textInsert(target, index: index, text: text, attributes: rng.chance(0.5) ? randomAttributes(&rng) : nil)
        }
        // A range of at most ~12 units between two boundaries.
        let a = Int.random(in: 0..<(boundaries.count - 1), using: &rng)
        let b = Int.random(in: (a + 1)...min(boundaries.count - 1, a + 12), using: &rng)
        let index = boundaries[a]
        let length = boundaries[b] - index
        if roll < 78 { return .textDelete(target, index: index, length: length) }
        var attributes = randomAttributes(&rng)
        if attributes.count == 0 { attributes["bold"] = .bool(true) }
        return .textFormat(target, index: index, length: length, attributes: attributes)
    }

    private func randomAttributes<G: RandomNumberGenerator>(_ rng: inout G) -> OrderedObject {
        let choices: [(String, [AnyValue])] = [
            ("bold", [true, .null]),
            ("italic", [true, .null]),
            ("color", ["#ff0000", "#00aa00", .null]),
            ("link", ["https://example.com/a", "https://例え.jp/ü?q=1", .object(["href": "https://x.org", "target": "_blank"]), .null]),
            ("size", [12, 14, .null]),
        ]
        var attributes = OrderedObject()
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            let (key, values) = choices.randomElement(using: &rng)!
            attributes[key] = values.randomElement(using: &rng)!
        }
        return attributes
    }

    // MARK: Map

    private func mapOperation<G: RandomNumberGenerator>(_ target: EditTarget, _ object: OrderedObject, _ rng: inout G) -> EditOperation {
        if object.count > 0, rng.chance(0.25) {
            return .mapDelete(target, key: object.keys.randomElement(using: &rng)!)
        }
        let canNest = target.path.count + 1 < maxDepth
        let roll = Int.random(in: 0..<100, using: &rng)
        if !canNest || roll < 50 {
            return .mapSet(target, key: Self.plainKeys.randomElement(using: &rng)!, value: .plain(randomPlain(nestedAllowed: true, &rng)))
        } else if roll < 67 {
            return .mapSet(target, key: Self.textKeys.randomElement(using: &rng)!, value: .text(rng.chance(0.5) ? "" : Self.snippets.randomElement(using: &rng)!))
        } else if roll < 84 {
            return .mapSet(target, key: Self.mapKeys.randomElement(using: &rng)!, value: .map(randomInitialMap(&rng)))
        } else {
            return .mapSet(target, key: Self.arrayKeys.randomElement(using: &rng)!, value: .array(randomScalars(&rng)))
        }
    }

    private func randomInitialMap<G: RandomNumberGenerator>(_ rng: inout G) -> OrderedObject {
        var o = OrderedObject()
        for _ in 0..<Int.random(in: 0...2, using: &rng) {
            o[Self.plainKeys.randomElement(using: &rng)!] = randomPlain(nestedAllowed: false, &rng)
        }
        return o
    }

    // MARK: Array

    private func arrayOperation<G: RandomNumberGenerator>(_ target: EditTarget, _ elements: [AnyValue], _ rng: inout G) -> EditOperation {
        if !elements.isEmpty, rng.chance(0.3) {
            let index = Int.random(in: 0..<elements.count, using: &rng)
            let length = Int.random(in: 1...min(3, elements.count - index), using: &rng)
            return .arrayDelete(target, index: index, length: length)
        }
        let canNest = target.path.count + 1 < maxDepth
        var values: [EditValue] = []
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            let roll = Int.random(in: 0..<100, using: &rng)
            if canNest, roll < 15 {
                values.append(.map(randomInitialMap(&rng)))
            } else if canNest, roll < 25 {
                values.append(.array(randomScalars(&rng)))
            } else {
                values.append(.plain(randomScalar(&rng)))
            }
        }
        return .arrayInsert(target, index: Int.random(in: 0...elements.count, using: &rng), values: values)
    }

    // MARK: Values

    private func randomScalars<G: RandomNumberGenerator>(_ rng: inout G) -> [AnyValue] {
        (0..<Int.random(in: 0...3, using: &rng)).map { _ in randomScalar(&rng) }
    }

    /// Null, booleans, integers, fractions and strings: never an object or array.
    private func randomScalar<G: RandomNumberGenerator>(_ rng: inout G) -> AnyValue {
        switch Int.random(in: 0..<9, using: &rng) {
        case 0: .null
        case 1: .bool(rng.chance(0.5))
        case 2: .int(Int64.random(in: -1000...1000, using: &rng))
        case 3: .int(Int64.random(in: -(1 << 40)...(1 << 40), using: &rng))
        case 4: .double([1.5, -0.25, 3.141592653589793, 1e-7, 2.5e20].randomElement(using: &rng)!)
        case 5: .string(Self.snippets.randomElement(using: &rng)!)
        default: .string("s\(Int.random(in: 0..<100, using: &rng))")
        }
    }

    /// Any plain value; objects and arrays only when `nestedAllowed`.
    private func randomPlain<G: RandomNumberGenerator>(nestedAllowed: Bool, _ rng: inout G) -> AnyValue {
        let roll = Int.random(in: 0..<100, using: &rng)
        if allowsBytes, roll < 8 {
            return .bytes((0..<Int.random(in: 0...4, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        }
        if nestedAllowed, roll < 20 { return .array(randomScalars(&rng)) }
        if nestedAllowed, roll < 32 {
            var o = OrderedObject()
            for k in ["x", "y", "ü"] where rng.chance(0.5) { o[k] = randomScalar(&rng) }
            if rng.chance(0.3) { o["list"] = .array(randomScalars(&rng)) }
            return .object(o)
        }
        return randomScalar(&rng)
    }
}
