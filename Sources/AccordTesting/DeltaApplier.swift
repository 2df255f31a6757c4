import AccordCRDT

/// Replays observer events onto plain values, to check that events describe changes
/// exactly: the previous JSON plus the events of a transaction must give the new JSON.
public enum DeltaApplier {
    /// One UTF-16 unit of rich text with its attributes.
    public struct RichUnit: Hashable, Sendable {
        public var unit: UInt16
        public var attributes: OrderedObject
        public init(unit: UInt16, attributes: OrderedObject) {
            self.unit = unit
            self.attributes = attributes
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// A text's content as rich units (embeds and nested types are not supported).
    public static func richUnits(of delta: [DeltaOp]) throws -> [RichUnit] {
        var out: [RichUnit] = []
        for op in delta {
            guard case .insert(.text(let s), let attributes) = op else { throw Failure("unsupported text content \(op.json.jsonText)") }
            out += s.utf16.map { RichUnit(unit: $0, attributes: attributes ?? [:]) }
        }
        return out
    }

    /// Rich units as delta runs `[[text, attributes or null], ...]`, for messages.
    public static func runs(_ units: [RichUnit]) -> AnyValue {
        var out: [AnyValue] = []
        var i = 0
        while i < units.count {
            var j = i
            while j < units.count, units[j].attributes == units[i].attributes { j += 1 }
            let text = String(decoding: units[i..<j].map(\.unit), as: UTF16.self)
            out.append(.array([.string(text), units[i].attributes.count > 0 ? .object(units[i].attributes) : .null]))
            i = j
        }
        return .array(out)
    }

    /// Applies a text event's delta: retains (with attributes: a null value removes the
    /// attribute), inserts with their attributes, deletes.
    public static func apply(textDelta delta: [DeltaOp], to text: inout [RichUnit]) throws {
        var i = 0
        for op in delta {
            switch op {
            case .retain(let n, let attributes):
                guard i + n <= text.count else { throw Failure("retain \(n) at \(i) past the end \(text.count)") }
                if let attributes {
                    for j in i..<(i + n) {
                        for (k, v) in attributes {
                            // Not `v.isNull ? nil : v`: AnyValue takes `nil` as `.null`.
                            text[j].attributes[k] = v.isNull ? AnyValue?.none : v
                        }
                    }
                }
                i += n
            case .insert(let content, let attributes):
                guard case .text(let s) = content else { throw Failure("unsupported text insert \(op.json.jsonText)") }
                let units = s.utf16.map { RichUnit(unit: $0, attributes: attributes ?? [:]) }
                text.insert(contentsOf: units, at: i)
                i += units.count
            case .delete(let n):
                guard i + n <= text.count else { throw Failure("delete \(n) at \(i) past the end \(text.count)") }
                text.removeSubrange(i..<(i + n))
            }
        }
    }

    /// Applies a text delta to a plain string, ignoring attributes.
    public static func apply(textDelta delta: [DeltaOp], to string: String) throws -> String {
        var units = string.utf16.map { RichUnit(unit: $0, attributes: [:]) }
        try apply(textDelta: delta.map { op in
            switch op {
            case .retain(let n, _): .retain(n)
            case .insert(let c, _): .insert(c)
            case .delete: op
            }
        }, to: &units)
        return String(decoding: units.map(\.unit), as: UTF16.self)
    }

    /// Applies an array event's delta; inserted values are taken as `transform` gives them.
    public static func apply<T>(arrayDelta delta: [DeltaOp], to array: inout [T], transform: (YValue) -> T) throws {
        var i = 0
        for op in delta {
            switch op {
            case .retain(let n, _):
                guard i + n <= array.count else { throw Failure("retain \(n) at \(i) past the end \(array.count)") }
                i += n
            case .insert(let content, _):
                guard case .values(let values) = content else { throw Failure("unsupported array insert \(op.json.jsonText)") }
                array.insert(contentsOf: values.map(transform), at: i)
                i += values.count
            case .delete(let n):
                guard i + n <= array.count else { throw Failure("delete \(n) at \(i) past the end \(array.count)") }
                array.removeSubrange(i..<(i + n))
            }
        }
    }

    /// Applies a map event's key changes: deleted keys go, added and updated keys take
    /// the value `newValue` gives (the map's value now, at the end of the transaction).
    public static func apply<T>(keys: [String: KeyChange], to map: inout [String: T], newValue: (String) -> T?) throws {
        for (key, change) in keys {
            switch change.action {
            case .delete:
                guard map.removeValue(forKey: key) != nil else { throw Failure("delete of absent key \(key)") }
            case .add:
                guard map[key] == nil else { throw Failure("add of present key \(key)") }
                guard let v = newValue(key) else { throw Failure("added key \(key) has no value") }
                map[key] = v
            case .update:
                guard map[key] != nil else { throw Failure("update of absent key \(key)") }
                guard let v = newValue(key) else { throw Failure("updated key \(key) has no value") }
                map[key] = v
            }
        }
    }

    /// Applies one event (as `observeDeep` delivers it, with its path) to the JSON of the
    /// observed type: finds the changed type by the path, then applies its keys and delta.
    /// Nested texts are plain strings in JSON, so their attributes are ignored here.
    public static func apply(_ event: YEvent, to json: inout AnyValue) throws {
        try apply(event, path: event.path[...], to: &json)
    }

    private static func apply(_ event: YEvent, path: ArraySlice<PathSegment>, to json: inout AnyValue) throws {
        if let segment = path.first {
            switch (segment, json) {
            case (.key(let k), .object(var o)):
                guard var child = o[k] else { throw Failure("event path key \(k) absent") }
                try apply(event, path: path.dropFirst(), to: &child)
                o[k] = child
                json = .object(o)
            case (.index(let i), .array(var a)):
                guard i >= 0, i < a.count else { throw Failure("event path index \(i) outside 0..<\(a.count)") }
                try apply(event, path: path.dropFirst(), to: &a[i])
                json = .array(a)
            default:
                throw Failure("event path \(segment) does not fit \(json.jsonText.prefix(80))")
            }
            return
        }
        switch event.target {
        case .text:
            guard case .string(let s) = json else { throw Failure("text event on non-string \(json.jsonText.prefix(80))") }
            json = .string(try apply(textDelta: event.delta, to: s))
        case .array:
            guard case .array(var a) = json else { throw Failure("array event on \(json.jsonText.prefix(80))") }
            try apply(arrayDelta: event.delta, to: &a) { $0.json }
            json = .array(a)
        case .map(let m):
            guard case .object(let o) = json else { throw Failure("map event on \(json.jsonText.prefix(80))") }
            var d = o.dictionary
            try apply(keys: event.keys, to: &d) { m.get($0)?.json }
            json = .object(OrderedObject(d.sorted { $0.key < $1.key }))
        default:
            throw Failure("unsupported event target")
        }
    }
}
