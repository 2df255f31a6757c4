/// All structs of a document and the shared types they form.
///
/// A value type owned by ``Doc`` so that the hot paths mutate plain arrays with static
/// exclusivity, and no per-item objects or reference counting exist.
struct Store {
    /// Every struct, by ``ItemRef``. This and the other per-struct arrays grow without
    /// copying (``ReallocatingArray``).
    var items = ReallocatingArray<Item>()
    /// Arena slots released by merges, reused before the arena grows.
    var freeItems: [ItemRef] = []
    /// UTF-16 units of every string item (each item owns a disjoint range).
    var text: ContiguousArray<UInt16> = []
    /// Values of every Any/JSON item (each item owns a disjoint range, like `text`). One
    /// flat pool rather than an array per item: a record's map field is one value, and
    /// an array of its own cost it a heap block, 3x the value itself.
    var valuePool = ReallocatingArray<AnyValue>()
    /// Binary, embed, format and doc contents.
    var payloads: [StructContent] = []
    var types = ReallocatingArray<TypeRecord>()
    var roots: [String: Int32] = [:]
    var keys: [String] = []
    /// Keys by their exact text (``ExactKey``): the index of each in ``keys``.
    var keyIndex: [ExactKey: Int32] = [:]
    /// The last keys interned, found without hashing (``intern(key:)``).
    var recentKeys = RecentStrings<Int32>()

    var clientIDs: [ClientID] = []
    var clientIndex: [ClientID: ClientIndex] = [:]
    /// Per client (by index), its structs in clock order, gap-free from clock 0.
    var clientStructs: [StructList] = []
    /// Per client (by index), the next expected clock.
    var clientState: [UInt32] = []
    /// Whether local edits may take the shortcuts that skip work the end of the
    /// transaction would undo: typing appends to an existing item (Store+ExtendLocal.swift),
    /// backspacing joins deleted text (Store+AbsorbDeleted.swift). Always true but in the
    /// tests that compare against the plain path.
    var usesLocalShortcuts = true
    /// For each item whose ``Item/redone`` is set, the ID of the item that re-inserted it
    /// (undo manager: UndoManager.swift). Entries of items whose flag is clear are stale
    /// and ignored.
    var redoneTargets: [ItemRef: StoreID] = [:]
    /// The splits of the transaction in progress, so that a failed one can join the
    /// parts again (Doc+Rollback.swift). Emptied when a transaction begins.
    var splitLog = ReusableList<SplitRecord>()
    /// How far ``holdsSurrogatePairs()`` has scanned `text`, and whether it found a
    /// lead surrogate (TextPosition.swift).
    var surrogateScan: (position: Int, found: Bool) = (0, false)

    /// Where an item was split: the right part starts at `clock`; when the cut fell
    /// inside a surrogate pair, the units it replaced with U+FFFD at `pairAt`.
    struct SplitRecord {
        var client: ClientIndex
        var clock: UInt32
        var pairAt: UInt32 = 0
        var lead: UInt16 = 0
        var trail: UInt16 = 0
        var rewroteUnits = false
    }

    // MARK: Interning

    /// Where ``findIndexNearLast(client:clock:)`` last found a struct.
    var lastFound: (client: ClientIndex, pos: Int) = (noClient, 0)

    /// The last client interned: updates name the same client struct after struct.
    var lastInterned: (id: ClientID, index: ClientIndex) = (.max, noClient)

    mutating func intern(client: ClientID) -> ClientIndex {
        if lastInterned.id == client, lastInterned.index != noClient { return lastInterned.index }
        if let i = clientIndex[client] {
            lastInterned = (client, i)
            return i
        }
        let i = ClientIndex(clientIDs.count)
        clientIDs.append(client)
        clientIndex[client] = i
        clientStructs.append(StructList())
        clientState.append(0)
        return i
    }

    /// The index of `key` when the document has interned it, without interning it.
    @inline(__always)
    func knownKey(_ key: String) -> Int32? {
        recentKeys.value(for: key) ?? keyIndex[ExactKey(key)]
    }

    mutating func intern(key: String) -> Int32 {
        if let k = recentKeys.value(for: key) { return k }
        // One probe finds the key or makes its entry (a look-up then an insert hashed a
        // new key twice, and most keys a batch of records brings are new: their ids).
        let next = Int32(keys.count)
        let k = Self.valueOrInserted(&keyIndex[ExactKey(key), default: next])
        if k == next {
            // A key new to the document is not remembered: most are a record's id, set
            // once, and would only push out the field names that come again.
            keys.append(key)
        } else {
            recentKeys.remember(key, k)
        }
        return k
    }

    /// Reads a dictionary entry through its `default:` accessor, which stores the
    /// default when the key is missing.
    @inline(__always)
    private static func valueOrInserted(_ entry: inout Int32) -> Int32 { entry }

    func state(of client: ClientID) -> Int {
        if lastInterned.id == client, lastInterned.index != noClient { return Int(clientState[Int(lastInterned.index)]) }
        guard let c = clientIndex[client] else { return 0 }
        return Int(clientState[Int(c)])
    }

    var stateVector: StateVector {
        var sv = StateVector()
        for (i, client) in clientIDs.enumerated() where clientState[i] > 0 { sv[client] = Int(clientState[i]) }
        return sv
    }

    // MARK: Arena

    mutating func allocate(_ item: Item) -> ItemRef {
        if let slot = freeItems.popLast() {
            items[Int(slot)] = item
            return slot
        }
        items.append(item)
        return ItemRef(items.count - 1)
    }

    /// Appends a brand-new struct at the end of its client's list (its clock must be the
    /// client's state) and advances the state.
    mutating func addStruct(_ ref: ItemRef) {
        let item = items[Int(ref)]
        let c = Int(item.client)
        clientStructs[c].append(ref, clock: item.clock)
        clientState[c] = item.clock + item.length
    }

    mutating func rootType(named name: String) -> Int32 {
        if let t = roots[name] { return t }
        let t = Int32(types.count)
        types.append(TypeRecord(kind: nil, rootName: name))
        roots[name] = t
        return t
    }

    // MARK: Lookup

    /// Position in the client's struct list of the struct containing `clock`.
    func findIndex(client: ClientIndex, clock: UInt32) -> Int? {
        // A client's list is gap-free from clock 0 to its state, so the struct holding
        // `clock` is the last one starting at or before it. The list's own clocks are
        // searched, never the items (indexing clientStructs in place: binding the list
        // to a local would retain and release its buffer on every lookup).
        let c = Int(client)
        guard clock < clientState[c] else { return nil }
        // The newest struct first: a transaction's update and typing start there.
        let last = clientStructs[c].count - 1
        if clock >= clientStructs[c].clock(at: last) { return last }
        return clientStructs[c].lastPosition(startingAtOrBefore: clock)
    }

    /// ``findIndex(client:clock:)``, trying first the newest struct and then the position
    /// the previous such lookup found and its neighbours. A transaction's lookups cluster
    /// (a delete looks up the same struct to split it, collect it and merge it), and even
    /// a binary search over a long client list costs a few dozen instructions. The hint
    /// may be stale after inserts and removals in the list; it is only used when the
    /// struct there holds `clock`, which one struct only does.
    @inline(__always)
    mutating func findIndexNearLast(client: ClientIndex, clock: UInt32) -> Int? {
        let c = Int(client)
        guard clock < clientState[c] else { return nil }
        let count = clientStructs[c].count
        // The newest struct first, as updates and typing mostly refer to it (inline:
        // the call cost as much as this check).
        if clock >= clientStructs[c].clock(at: count - 1) { return count - 1 }
        return findIndexNearPrevious(client: client, clock: clock)
    }

    /// ``findIndexNearLast(client:clock:)`` past its first check (`clock` is below the
    /// client's state and before its newest struct).
    private mutating func findIndexNearPrevious(client: ClientIndex, clock: UInt32) -> Int? {
        let c = Int(client)
        let count = clientStructs[c].count
        if lastFound.client == client {
            var pos = max(lastFound.pos - 1, 0)
            let end = min(lastFound.pos + 2, count - 1)
            while pos < end {
                if clock < clientStructs[c].clock(at: pos) { break }
                if clock < clientStructs[c].clock(at: pos + 1) {
                    lastFound.pos = pos
                    return pos
                }
                pos += 1
            }
        }
        let found = clientStructs[c].lastPosition(startingAtOrBefore: clock)
        if let found { lastFound = (client, found) }
        return found
    }

    func find(client: ClientIndex, clock: UInt32) -> ItemRef? {
        guard let i = findIndex(client: client, clock: clock) else { return nil }
        return clientStructs[Int(client)][i]
    }

    /// The item containing `clock`, split so that it starts there.
    mutating func findCleanStart(client: ClientIndex, clock: UInt32) -> ItemRef? {
        guard let pos = findIndexNearLast(client: client, clock: clock) else { return nil }
        let ref = clientStructs[Int(client)][pos]
        let item = items[Int(ref)]
        if item.clock < clock, item.kind != .gc {
            return split(ref, at: clock - item.clock, position: pos)
        }
        return ref
    }

    /// The item containing `clock`, split so that it ends there.
    mutating func findCleanEnd(client: ClientIndex, clock: UInt32) -> ItemRef? {
        guard let pos = findIndexNearLast(client: client, clock: clock) else { return nil }
        let ref = clientStructs[Int(client)][pos]
        let item = items[Int(ref)]
        if clock != item.lastClock, item.kind != .gc {
            _ = split(ref, at: clock - item.clock + 1, position: pos)
        }
        return ref
    }

    // MARK: Splitting

    /// Splits item `ref` after `offset` units; returns the new right part.
    /// `position` is the item's index in its client's list, when the caller knows it.
    @discardableResult
    mutating func split(_ ref: ItemRef, at offset: UInt32, position: Int? = nil) -> ItemRef {
        let left = items[Int(ref)]
        precondition(offset > 0 && offset < left.length, "split inside the item")
        var right = left
        right.clock = left.clock + offset
        right.length = left.length - offset
        right.originClient = left.client
        right.originClock = left.clock + offset - 1
        right.left = ref
        switch left.kind {
        case .string:
            right.a = left.a + offset
            // Splitting a surrogate pair: both halves become U+FFFD, as in Yjs.
            let l = Int(left.a + offset - 1), r = l + 1
            if UTF16.isLeadSurrogate(text[l]), UTF16.isTrailSurrogate(text[r]) {
                splitLog.append(SplitRecord(client: left.client, clock: right.clock, pairAt: UInt32(l),
                                            lead: text[l], trail: text[r]))
                text[l] = 0xFFFD
                text[r] = 0xFFFD
                splitLog[splitLog.count - 1].rewroteUnits = true
            }
        case .any, .json:
            right.a = left.a + offset
        default:
            break
        }
        if splitLog.isEmpty || splitLog[splitLog.count - 1].clock != right.clock
            || splitLog[splitLog.count - 1].client != left.client {
            splitLog.append(SplitRecord(client: left.client, clock: right.clock))
        }
        let rightRef = allocate(right)
        if left.redone, let target = redoneTargets[ref] {
            // Yjs splitItem: the right part was redone as the same units of the copy.
            redoneTargets[rightRef] = StoreID(client: target.client, clock: target.clock + offset)
        }
        items[Int(ref)].length = offset
        items[Int(ref)].right = rightRef
        if right.right != noItem { items[Int(right.right)].left = rightRef }
        if right.parentSub >= 0, right.right == noItem, right.parent >= 0 {
            types[Int(right.parent)].map[right.parentSub] = rightRef
        }
        let c = Int(left.client)
        guard let pos = position ?? findIndexNearLast(client: left.client, clock: left.clock) else {
            preconditionFailure("an item is always in its client's struct list")
        }
        clientStructs[c].insert(rightRef, clock: right.clock, at: pos + 1)
        return rightRef
    }

    // MARK: Content access

    func string(of item: Item) -> [UInt16] {
        Array(text[Int(item.a)..<Int(item.a + item.length)])
    }

    func values(of item: Item) -> Slice<ReallocatingArray<AnyValue>> {
        valuePool[Int(item.a)..<Int(item.a + item.length)]
    }

    /// Stores wire content for a new item, returning its kind and payload fields.
    mutating func store(_ content: StructContent) -> (ContentKind, UInt32, UInt32) {
        switch content {
        case .deleted: return (.deleted, 0, 0)
        case .string(let units):
            let offset = UInt32(text.count)
            text.append(contentsOf: units)
            return (.string, offset, 0)
        case .any(let values):
            let offset = UInt32(valuePool.count)
            valuePool.append(contentsOf: values)
            return (.any, offset, 0)
        case .json(let values):
            let offset = UInt32(valuePool.count)
            valuePool.append(contentsOf: values)
            return (.json, offset, 0)
        case .binary:
            payloads.append(content)
            return (.binary, UInt32(payloads.count - 1), 0)
        case .embed:
            payloads.append(content)
            return (.embed, UInt32(payloads.count - 1), 0)
        case .format:
            payloads.append(content)
            return (.format, UInt32(payloads.count - 1), 0)
        case .doc:
            payloads.append(content)
            return (.doc, UInt32(payloads.count - 1), 0)
        case .type(let kind):
            types.append(TypeRecord(kind: kind))
            return (.type, UInt32(types.count - 1), 0)
        }
    }

    func formatPair(of item: Item) -> (key: String, value: AnyValue)? {
        guard item.kind == .format, case .format(let k, let v) = payloads[Int(item.a)] else { return nil }
        return (k, v)
    }
}
