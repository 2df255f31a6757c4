/// Writes structs one by one into client groups, like Yjs's `LazyStructWriter`: a new
/// group starts whenever the client changes, and its first clock is that of the first
/// struct written to it. The caller keeps clocks inside a group contiguous.
struct LazyStructWriter {
    private var groups: [(count: Int, bytes: [UInt8])] = []
    private var current = ByteWriter()
    private var currentClient: ClientID = 0
    private var written = 0

    /// Appends `s` as Yjs would re-encode it (see ``UpdateStruct/yjsRewritten``).
    mutating func write(_ s: UpdateStruct) {
        if written > 0 && currentClient != s.id.client { flush() }
        if written == 0 {
            currentClient = s.id.client
            current.writeVarUInt(s.id.client)
            current.writeVarUInt(s.id.clock)
        }
        s.yjsRewritten.write(to: &current)
        written += 1
    }

    private mutating func flush() {
        guard written > 0 else { return }
        groups.append((written, current.takeBytes()))
        written = 0
    }

    /// `vu(numGroups) · (vu(numStructs) · group bytes)*`.
    mutating func finish(into w: inout ByteWriter) {
        flush()
        w.writeVarUInt(groups.count)
        for g in groups {
            w.writeVarUInt(g.count)
            w.writeRaw(g.bytes)
        }
    }
}

extension UpdateStruct {
    var isSkip: Bool { if case .skip = self { true } else { false } }
    /// The clock after the struct's last unit.
    var end: Int { id.clock + length }

    /// The struct as Yjs writes it after reading it from an update: its Item keeps
    /// `parentSub` only when the key was on the wire, so the 0x20 bit survives only then;
    /// and ContentDoc keeps only the options a Yjs `Doc` remembers.
    var yjsRewritten: UpdateStruct {
        guard case .item(var item) = self else { return self }
        item.hasParentSub = item.parentSub != nil
        if case .doc(let guid, let options) = item.content {
            item.content = StructContent.yjsDocContent(guid: guid, options: options)
        }
        return .item(item)
    }
}

extension StructContent {
    /// What Yjs's ContentDoc writes back for sub-document options it read: it builds a
    /// `Doc` from `{guid, ...options}` and then writes only `gc: false` (when gc is
    /// falsy), `autoLoad: true` (when truthy) and `meta` (when not null), in that order.
    /// An options value that is not an object contributes nothing.
    static func yjsDocContent(guid: String, options: AnyValue) -> StructContent {
        guard case .object(let o) = options else { return .doc(guid: guid, options: .object(OrderedObject())) }
        var out = OrderedObject()
        if let gc = o["gc"], gc != .undefined, !gc.isJSTruthy { out["gc"] = .bool(false) }
        if let autoLoad = o["autoLoad"], autoLoad.isJSTruthy { out["autoLoad"] = .bool(true) }
        if let meta = o["meta"], meta != .undefined, meta != .null { out["meta"] = meta }
        var effectiveGuid = guid
        if case .string(let g)? = o["guid"] { effectiveGuid = g }
        return .doc(guid: effectiveGuid, options: .object(out))
    }
}

extension AnyValue {
    /// JavaScript truthiness.
    var isJSTruthy: Bool {
        switch self {
        case .undefined, .null: false
        case .bool(let b): b
        case .int(let i): i != 0
        case .double(let d): !(d == 0 || d.isNaN)
        case .string(let s): !s.isEmpty
        case .bytes, .array, .object: true
        }
    }
}
