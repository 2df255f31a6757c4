public import AccordCRDT

extension DocumentPresence {
    /// How deep a field's value may nest (a scalar is 0, `[1]` is 1). Awareness states
    /// travel as JSON, and JSON readers, ours included, refuse documents nested 64 deep;
    /// the state object itself takes one level.
    public static let maxFieldDepth = 62

    /// Our state with `fields` merged into its top-level keys.
    ///
    /// Values are kept as JSON carries them, which is what every peer reads (Yjs peers
    /// `JSON.parse` the state): `2.0` reads back as `2`, NaN and infinities as `null`,
    /// bytes as an object keyed by index. `.undefined` removes the key, as
    /// `JSON.stringify` drops an undefined property. New keys are appended in sorted
    /// order, so the bytes sent do not depend on dictionary order.
    /// - Throws: `INVALID_ARGUMENT` when a value nests deeper than ``maxFieldDepth``.
    public func merged(_ fields: [String: AnyValue]) throws(AccordError) -> AnyValue {
        var object = awareness.localState?.objectValue ?? OrderedObject()
        for key in fields.keys.sorted() {
            guard let value = fields[key] else { continue }
            if case .undefined = value {
                object[key] = nil
                continue
            }
            object[key] = try Self.asJSON(value, key: key)
        }
        return .object(object)
    }

    /// `value` after a trip through JSON text.
    static func asJSON(_ value: AnyValue, key: String) throws(AccordError) -> AnyValue {
        // Checked before anything recursive (writing the JSON text is) touches the value.
        guard Self.depth(of: value, limit: maxFieldDepth) <= maxFieldDepth else {
            throw AccordError(
                .invalidArgument, "presence field \(key) nests deeper than \(maxFieldDepth) levels",
                details: ["field": key, "limit": String(maxFieldDepth)])
        }
        do throws(AccordError) {
            return try AnyValue(jsonText: value.jsonText)
        } catch {
            throw AccordError(.invalidArgument, "presence field \(key) is not JSON: \(error.message)", details: ["field": key])
        }
    }

    /// The nesting depth of `value`, walked without recursion; stops counting once past
    /// `limit`, so an absurdly deep value costs no more than a legal one.
    static func depth(of value: AnyValue, limit: Int) -> Int {
        var deepest = 0
        var pending: [(value: AnyValue, depth: Int)] = [(value, 0)]
        while let (current, depth) = pending.popLast() {
            deepest = max(deepest, depth)
            guard depth <= limit else { return depth }
            switch current {
            case .array(let items):
                for item in items { pending.append((item, depth + 1)) }
            case .object(let object):
                for entry in object.entries { pending.append((entry.value, depth + 1)) }
            default:
                break
            }
        }
        return deepest
    }
}
