/// Where an item lives, as written on the wire when it has no origins.
public enum StructParent: Hashable, Sendable {
    /// A root type, by name.
    case root(String)
    /// The shared type held by the item with this ID.
    case item(ID)
}

/// One item struct decoded from an update.
public struct UpdateItem: Hashable, Sendable {
    public var id: ID
    public var origin: ID?
    public var rightOrigin: ID?
    /// Present on the wire only when both origins are absent.
    public var parent: StructParent?
    /// The map key, present on the wire only when both origins are absent.
    public var parentSub: String?
    /// The 0x20 info bit: the item belongs to a map key (even when the key is not written).
    public var hasParentSub: Bool
    public var content: StructContent

    public var length: Int { content.length }
    public var lastID: ID { ID(client: id.client, clock: id.clock + length - 1) }

    public init(id: ID, origin: ID?, rightOrigin: ID?, parent: StructParent?, parentSub: String?, hasParentSub: Bool? = nil, content: StructContent) {
        self.id = id
        self.origin = origin
        self.rightOrigin = rightOrigin
        self.parent = parent
        self.parentSub = parentSub
        self.hasParentSub = hasParentSub ?? (parentSub != nil)
        self.content = content
    }

    /// The part of this item from `offset` on: its origin becomes the unit before the cut,
    /// so no parent info is written for it (section 2.5).
    public func slice(from offset: Int) -> UpdateItem {
        guard offset > 0 else { return self }
        var right = self
        right.id.clock += offset
        right.origin = ID(client: id.client, clock: id.clock + offset - 1)
        right.content = content.slice(from: offset)
        return right
    }
}

/// A struct in an update: an item, a collected range (GC) or a gap marker (Skip).
public enum UpdateStruct: Hashable, Sendable {
    case item(UpdateItem)
    case gc(ID, length: Int)
    case skip(ID, length: Int)

    public var id: ID {
        switch self {
        case .item(let item): item.id
        case .gc(let id, _), .skip(let id, _): id
        }
    }

    public var length: Int {
        switch self {
        case .item(let item): item.length
        case .gc(_, let n), .skip(_, let n): n
        }
    }

    /// The struct from `offset` on (Skip and GC just shrink).
    public func slice(from offset: Int) -> UpdateStruct {
        guard offset > 0 else { return self }
        switch self {
        case .item(let item): return .item(item.slice(from: offset))
        case .gc(let id, let n): return .gc(ID(client: id.client, clock: id.clock + offset), length: n - offset)
        case .skip(let id, let n): return .skip(ID(client: id.client, clock: id.clock + offset), length: n - offset)
        }
    }

    func write(to w: inout ByteWriter) {
        switch self {
        case .gc(_, let n):
            w.writeUInt8(0)
            w.writeVarUInt(n)
        case .skip(_, let n):
            w.writeUInt8(10)
            w.writeVarUInt(n)
        case .item(let item):
            var info = item.content.ref
            if item.origin != nil { info |= 0x80 }
            if item.rightOrigin != nil { info |= 0x40 }
            if item.hasParentSub { info |= 0x20 }
            w.writeUInt8(info)
            if let o = item.origin { o.write(to: &w) }
            if let ro = item.rightOrigin { ro.write(to: &w) }
            if item.origin == nil && item.rightOrigin == nil {
                switch item.parent {
                case .root(let name):
                    w.writeVarUInt(1)
                    w.writeVarString(name)
                case .item(let id):
                    w.writeVarUInt(0)
                    id.write(to: &w)
                case nil:
                    // Only reachable for hand-built structs; Yjs would not produce it.
                    w.writeVarUInt(1)
                    w.writeVarString("")
                }
                if item.hasParentSub { w.writeVarString(item.parentSub ?? "") }
            }
            item.content.write(to: &w)
        }
    }
}

/// A decoded update v1: structs grouped by client, then the delete set.
public struct DecodedUpdate: Hashable, Sendable {
    public struct ClientGroup: Hashable, Sendable {
        public var client: ClientID
        public var structs: [UpdateStruct]
        public init(client: ClientID, structs: [UpdateStruct]) {
            self.client = client
            self.structs = structs
        }
    }

    public var groups: [ClientGroup]
    public var deleteSet: DeleteSet

    public init(groups: [ClientGroup] = [], deleteSet: DeleteSet = DeleteSet()) {
        self.groups = groups
        self.deleteSet = deleteSet
    }

    /// Decodes update v1 bytes. Throws ``ErrorCode/malformedUpdate`` on anything that
    /// is not a well-formed update, including trailing bytes.
    public static func decode(_ bytes: [UInt8]) throws(AccordError) -> DecodedUpdate {
        var r = ByteReader(bytes)
        let groupCount = try r.readCount(minElementSize: 3, "client group count")
        var groups: [ClientGroup] = []
        groups.reserveCapacity(groupCount)
        for _ in 0..<groupCount {
            let structCount = try r.readCount(minElementSize: 2, "struct count")
            let client = try r.readVarUInt()
            var clock = try r.readVarUInt(max: UInt64(ID.maxClock), "clock")
            var structs: [UpdateStruct] = []
            structs.reserveCapacity(structCount)
            for _ in 0..<structCount {
                let s = try readStruct(client: client, clock: clock, from: &r)
                clock += s.length
                guard clock <= ID.maxClock else { throw r.error("clock overflows 32 bits") }
                structs.append(s)
            }
            groups.append(ClientGroup(client: client, structs: structs))
        }
        let ds = try DeleteSet.read(from: &r)
        guard r.isAtEnd else { throw r.error("trailing bytes after update") }
        return DecodedUpdate(groups: groups, deleteSet: ds)
    }

    private static func readStruct(client: ClientID, clock: Int, from r: inout ByteReader) throws(AccordError) -> UpdateStruct {
        let info = try r.readUInt8()
        let id = ID(client: client, clock: clock)
        switch info & 0x1f {
        case 0:
            guard info == 0 else { throw r.error("GC struct with flags") }
            let n = try r.readVarUInt(max: UInt64(ID.maxClock), "GC length")
            guard n > 0 else { throw r.error("GC struct of length 0") }
            return .gc(id, length: n)
        case 10:
            guard info == 10 else { throw r.error("Skip struct with flags") }
            let n = try r.readVarUInt(max: UInt64(ID.maxClock), "Skip length")
            guard n > 0 else { throw r.error("Skip struct of length 0") }
            return .skip(id, length: n)
        default:
            let origin: ID? = info & 0x80 != 0 ? try ID.read(from: &r) : nil
            let rightOrigin: ID? = info & 0x40 != 0 ? try ID.read(from: &r) : nil
            var parent: StructParent? = nil
            var parentSub: String? = nil
            if origin == nil && rightOrigin == nil {
                let isRoot = try r.readVarUInt()
                switch isRoot {
                case 1: parent = .root(try r.readVarString())
                case 0: parent = .item(try ID.read(from: &r))
                default: throw r.error("invalid parent info \(isRoot)")
                }
                if info & 0x20 != 0 { parentSub = try r.readVarString() }
            }
            let content = try StructContent.read(ref: info & 0x1f, from: &r)
            return .item(UpdateItem(id: id, origin: origin, rightOrigin: rightOrigin, parent: parent,
                                    parentSub: parentSub, hasParentSub: info & 0x20 != 0, content: content))
        }
    }

    /// Encodes as update v1, groups in the order given.
    public func encode() -> [UInt8] {
        var w = ByteWriter()
        w.writeVarUInt(groups.count)
        for g in groups {
            w.writeVarUInt(g.structs.count)
            w.writeVarUInt(g.client)
            w.writeVarUInt(g.structs.first?.id.clock ?? 0)
            for s in g.structs { s.write(to: &w) }
        }
        var ds = deleteSet
        ds.normalize()
        ds.write(to: &w)
        return w.takeBytes()
    }
}

extension Array where Element == UpdateStruct {
    /// Whether the structs are in clock order (they are, in any update a peer wrote).
    var isSortedByClock: Bool {
        guard count > 1 else { return true }
        for i in 1..<count where self[i - 1].id.clock > self[i].id.clock { return false }
        return true
    }
}

extension Array where Element == ClientID {
    var isSorted: Bool {
        guard count > 1 else { return true }
        for i in 1..<count where self[i - 1] > self[i] { return false }
        return true
    }
}
