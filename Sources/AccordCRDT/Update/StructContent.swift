/// The kind of a shared type as written on the wire (type refs of ContentType).
public enum TypeKind: Hashable, Sendable {
    case array, map, text, xmlFragment, xmlText
    case xmlElement(name: String)
    case xmlHook(name: String)
    /// Yrs-only refs (7 WeakLink, 15 placeholder) kept so they re-encode unchanged.
    case other(ref: Int)

    var ref: Int {
        switch self {
        case .array: 0
        case .map: 1
        case .text: 2
        case .xmlElement: 3
        case .xmlFragment: 4
        case .xmlHook: 5
        case .xmlText: 6
        case .other(let ref): ref
        }
    }
}

/// The content of an item struct, as decoded from an update (section 2.6).
public enum StructContent: Hashable, Sendable {
    /// Content that was deleted and collected; only its length remains.
    case deleted(length: Int)
    /// Legacy ContentJSON: values that travel as JSON text.
    case json([AnyValue])
    case binary([UInt8])
    /// Text as UTF-16 code units (the unit of Yjs lengths and indices).
    case string([UInt16])
    case embed(AnyValue)
    case format(key: String, value: AnyValue)
    case type(TypeKind)
    case any([AnyValue])
    case doc(guid: String, options: AnyValue)

    /// The content ref written in the low 5 bits of the info byte.
    var ref: UInt8 {
        switch self {
        case .deleted: 1
        case .json: 2
        case .binary: 3
        case .string: 4
        case .embed: 5
        case .format: 6
        case .type: 7
        case .any: 8
        case .doc: 9
        }
    }

    /// Clock length: UTF-16 units of text, elements of any/json, 1 for everything else.
    public var length: Int {
        switch self {
        case .deleted(let n): n
        case .json(let v): v.count
        case .string(let s): s.count
        case .any(let v): v.count
        case .binary, .embed, .format, .type, .doc: 1
        }
    }

    /// Whether the content counts toward its parent's length (Format and Deleted do not).
    public var isCountable: Bool {
        switch self {
        case .deleted, .format: false
        default: true
        }
    }

    /// The content from `offset` on (only meaningful for splittable kinds). Splitting a
    /// surrogate pair replaces the dangling halves with U+FFFD, as Yjs does.
    func slice(from offset: Int) -> StructContent {
        guard offset > 0 else { return self }
        switch self {
        case .deleted(let n): return .deleted(length: n - offset)
        case .json(let v): return .json(Array(v[offset...]))
        case .any(let v): return .any(Array(v[offset...]))
        case .string(let s):
            var right = Array(s[offset...])
            if offset < s.count, UTF16.isTrailSurrogate(s[offset]), UTF16.isLeadSurrogate(s[offset - 1]) { right[0] = 0xFFFD }
            return .string(right)
        default: return self
        }
    }

    /// The first `count` units of the content.
    func prefix(_ count: Int) -> StructContent {
        switch self {
        case .deleted: return .deleted(length: count)
        case .json(let v): return .json(Array(v[..<count]))
        case .any(let v): return .any(Array(v[..<count]))
        case .string(let s):
            var left = Array(s[..<count])
            if count > 0, count < s.count, UTF16.isLeadSurrogate(s[count - 1]), UTF16.isTrailSurrogate(s[count]) {
                left[count - 1] = 0xFFFD
            }
            return .string(left)
        default: return self
        }
    }

    func write(to w: inout ByteWriter) {
        switch self {
        case .deleted(let n): w.writeVarUInt(n)
        case .json(let values):
            w.writeVarUInt(values.count)
            for v in values { w.writeVarString(v.jsonText) }
        case .binary(let b): w.writeVarBytes(b)
        case .string(let s): w.writeVarString(utf16: s)
        case .embed(let v): w.writeVarString(v.jsonText)
        case .format(let key, let value):
            w.writeVarString(key)
            w.writeVarString(value.jsonText)
        case .type(let kind):
            w.writeVarUInt(kind.ref)
            switch kind {
            case .xmlElement(let name), .xmlHook(let name): w.writeVarString(name)
            default: break
            }
        case .any(let values):
            w.writeVarUInt(values.count)
            for v in values { v.write(to: &w) }
        case .doc(let guid, let options):
            w.writeVarString(guid)
            options.write(to: &w)
        }
    }

    static func read(ref: UInt8, from r: inout ByteReader) throws(AccordError) -> StructContent {
        switch ref {
        case 1:
            let n = try r.readVarUInt(max: UInt64(ID.maxClock), "deleted length")
            guard n > 0 else { throw r.error("deleted content of length 0") }
            return .deleted(length: n)
        case 2:
            let n = try r.readCount("JSON content count")
            var values: [AnyValue] = []
            values.reserveCapacity(n)
            for _ in 0..<n { values.append(try parseJSON(try r.readVarString(), r)) }
            guard n > 0 else { throw r.error("empty JSON content") }
            return .json(values)
        case 3: return .binary(try r.readVarBytes())
        case 4:
            let units = try r.readVarStringUTF16()
            guard !units.isEmpty else { throw r.error("empty string content") }
            return .string(units)
        case 5: return .embed(try parseJSON(try r.readVarString(), r))
        case 6:
            let key = try r.readVarString()
            return .format(key: key, value: try parseJSON(try r.readVarString(), r))
        case 7:
            let typeRef = try r.readVarUInt(max: 255, "type ref")
            switch typeRef {
            case 0: return .type(.array)
            case 1: return .type(.map)
            case 2: return .type(.text)
            case 3: return .type(.xmlElement(name: try r.readVarString()))
            case 4: return .type(.xmlFragment)
            case 5: return .type(.xmlHook(name: try r.readVarString()))
            case 6: return .type(.xmlText)
            case 7, 15: return .type(.other(ref: typeRef))
            default: throw r.error("unknown type ref \(typeRef)")
            }
        case 8:
            let n = try r.readCount("any content count")
            guard n > 0 else { throw r.error("empty any content") }
            var values: [AnyValue] = []
            values.reserveCapacity(n)
            for _ in 0..<n { values.append(try AnyValue.read(from: &r)) }
            return .any(values)
        case 9:
            let guid = try r.readVarString()
            return .doc(guid: guid, options: try AnyValue.read(from: &r))
        default:
            throw r.error("unknown content ref \(ref)")
        }
    }

    private static func parseJSON(_ text: String, _ r: ByteReader) throws(AccordError) -> AnyValue {
        do { return try AnyValue(jsonText: text) } catch { throw r.error("invalid JSON in content: \(error.message)") }
    }
}
