/// Yjs's binary and JSON forms of a relative position (`encodeRelativePosition`,
/// `relativePositionToJSON` in Yjs's RelativePosition.js; Yrs writes the same bytes).
///
/// Binary: a tag, then either the item's ID (tag 0: client and clock as varUints), the
/// root's name (tag 1: a varString) or the nested type's ID (tag 2), then `assoc` as a
/// lib0 varInt. The item wins when there is one: the type is found from it.
extension RelativePosition {
    public func encode() -> [UInt8] {
        var w = ByteWriter(capacity: 16)
        if let item {
            w.writeVarUInt(0)
            item.write(to: &w)
        } else if let typeName {
            w.writeVarUInt(1)
            w.writeVarString(typeName)
        } else if let type {
            w.writeVarUInt(2)
            type.write(to: &w)
        } else {
            // Only reachable through the memberwise init; Yjs throws here. Write the
            // start of an unnamed root so the bytes still decode.
            w.writeVarUInt(1)
            w.writeVarString("")
        }
        w.writeVarInt(assoc)
        return w.takeBytes()
    }

    /// Decodes Yjs's binary form. An older form without the association (Yjs before
    /// 13.5) reads as `.after`.
    /// - Throws: ``ErrorCode/invalidArgument`` for bytes that are not a relative position.
    public init(decoding bytes: [UInt8]) throws(AccordError) {
        var r = ByteReader(bytes, errorCode: .invalidArgument)
        var type: ID?
        var typeName: String?
        var item: ID?
        switch try r.readVarUInt() {
        case 0: item = try ID.read(from: &r)
        case 1: typeName = try r.readVarString()
        case 2: type = try ID.read(from: &r)
        case let tag: throw r.error("unknown relative position tag \(tag)")
        }
        let assoc = r.isAtEnd ? 0 : try r.readVarInt().value
        guard r.isAtEnd else { throw r.error("bytes after the relative position") }
        self.init(type: type, typeName: typeName, item: item, assoc: assoc)
    }

    /// Yjs's JSON form: `{"type": {"client", "clock"}, "tname", "item": {"client",
    /// "clock"}, "assoc"}`, each field present only when set.
    public var json: AnyValue {
        var out = OrderedObject()
        if let type { out["type"] = Self.json(type) }
        if let typeName { out["tname"] = .string(typeName) }
        if let item { out["item"] = Self.json(item) }
        out["assoc"] = .int(assoc)
        return .object(out)
    }

    /// Reads Yjs's JSON form (a missing `assoc` is 0).
    /// - Throws: ``ErrorCode/invalidArgument`` when it is not one.
    public init(json: AnyValue) throws(AccordError) {
        guard case .object(let fields) = json else {
            throw AccordError(.invalidArgument, "a relative position is a JSON object")
        }
        let type = try Self.id(fields["type"], "type")
        let item = try Self.id(fields["item"], "item")
        var typeName: String?
        switch fields["tname"] {
        case nil, .null?: typeName = nil
        case .string(let s)?: typeName = s
        default: throw AccordError(.invalidArgument, "relative position tname is not a string")
        }
        var assoc: Int64 = 0
        switch fields["assoc"] {
        case nil, .null?: break
        case .int(let n)?: assoc = n
        case .double(let d)? where d.rounded() == d && abs(d) < 1e15: assoc = Int64(d)
        default: throw AccordError(.invalidArgument, "relative position assoc is not an integer")
        }
        guard item != nil || typeName != nil || type != nil else {
            throw AccordError(.invalidArgument, "a relative position names an item, a root or a type")
        }
        self.init(type: type, typeName: typeName, item: item, assoc: assoc)
    }

    private static func json(_ id: ID) -> AnyValue {
        .object(["client": .int(Int64(clamping: id.client)), "clock": .int(Int64(id.clock))])
    }

    private static func id(_ value: AnyValue?, _ field: String) throws(AccordError) -> ID? {
        switch value {
        case nil, .null?: return nil
        case .object(let o)?:
            guard let client = integer(o["client"]), client >= 0,
                  let clock = integer(o["clock"]), clock >= 0, clock <= Int64(ID.maxClock) else {
                throw AccordError(.invalidArgument, "relative position \(field) needs integer client and clock")
            }
            return ID(client: ClientID(client), clock: Int(clock))
        default:
            throw AccordError(.invalidArgument, "relative position \(field) is not an object")
        }
    }

    private static func integer(_ value: AnyValue?) -> Int64? {
        switch value {
        case .int(let n)?: return n
        case .double(let d)? where d.rounded() == d && abs(d) <= 9_007_199_254_740_991: return Int64(d)
        default: return nil
        }
    }
}
