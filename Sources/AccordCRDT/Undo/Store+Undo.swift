/// The struct-level steps of undo and redo, after Yjs's `UndoManager.js` and
/// `Item.redoItem` (read through Yrs's `undo.rs` too): walking an ID range item by item,
/// protecting deleted items from garbage collection, and re-inserting a deleted item as
/// a copy of itself.
extension Store {
    /// Calls `body` with this store and each item (never a GC struct) of `client`'s units
    /// `clock..<clock+length`, splitting items so that each lies inside the range.
    /// Re-finds the position by clock at each step: `body` may split items.
    mutating func forEachItem(client: ClientIndex, clock start: UInt32, length: UInt32,
                              _ body: (inout Store, ItemRef) -> Void) {
        let end = start + length
        var clock = start
        while clock < end, let ref = findCleanStart(client: client, clock: clock) {
            let item = items[Int(ref)]
            if item.lastClock >= end { _ = findCleanEnd(client: client, clock: end - 1) }
            clock = item.clock + items[Int(ref)].length
            if items[Int(ref)].kind != .gc { body(&self, ref) }
        }
    }

    /// ``forEachItem(client:clock:length:_:)`` over every range of `set`, whose clients this
    /// store may not know (then they have nothing here).
    mutating func forEachItem(in set: DeleteSet, _ body: (inout Store, ItemRef) -> Void) {
        for (clientID, ranges) in set.clients {
            guard let client = clientIndex[clientID] else { continue }
            for range in ranges {
                let state = Int(clientState[Int(client)])
                guard range.clock < state else { continue }
                let length = min(range.end, state) - range.clock
                forEachItem(client: client, clock: UInt32(range.clock), length: UInt32(length), body)
            }
        }
    }

    /// Whether item `ref` lies (at any depth) inside one of `scope`'s types (Yjs `isParentOf`).
    func isInside(_ ref: ItemRef, anyOf scope: UndoScope) -> Bool {
        let parent = items[Int(ref)].parent
        return parent >= 0 && (scope.contains(parent) || isType(parent, insideAnyOf: scope))
    }

    /// Whether type `t` is nested (at any depth) inside one of `scope`'s types.
    func isType(_ t: Int32, insideAnyOf scope: UndoScope) -> Bool {
        var current = t
        // Bounded by the number of types: nesting has no cycles, this only guards a bug.
        for _ in 0...types.count {
            let holder = types[Int(current)].item
            guard holder != noItem else { return false }
            current = items[Int(holder)].parent
            guard current >= 0 else { return false }
            if scope.contains(current) { return true }
        }
        return false
    }

    /// Sets ``Item/keep`` on `ref` and on the items holding its ancestors (Yjs `keepItem`):
    /// kept items are not garbage-collected, so undo can copy their content back.
    mutating func setKeep(_ ref: ItemRef, _ keep: Bool) {
        var current = ref
        while current != noItem, items[Int(current)].keep != keep {
            items[Int(current)].keep = keep
            let parent = items[Int(current)].parent
            current = parent >= 0 ? types[Int(parent)].item : noItem
        }
    }

    /// The item holding the type `ref` lies in (`noItem` for a root); nil for a GC struct.
    func parentHolder(of ref: ItemRef) -> ItemRef? {
        let parent = items[Int(ref)].parent
        return parent >= 0 ? types[Int(parent)].item : nil
    }

    /// The item starting at the ID that replaced `ref` when it was redone (split there).
    mutating func redoneItem(of ref: ItemRef) -> ItemRef? {
        guard items[Int(ref)].redone, let target = redoneTargets[ref] else { return nil }
        return findCleanStart(client: target.client, clock: target.clock)
    }

    /// The newest copy of the unit at `(client, clock)`, following redone links (Yjs
    /// `followRedone`), split so that it starts at that unit's copy.
    mutating func followRedone(client: ClientIndex, clock: UInt32) -> ItemRef? {
        var client = client, clock = clock
        // Each step moves to a newer item, so the chain ends; the bound guards a store
        // whose links were made inconsistent by a bug rather than looping forever.
        for _ in 0...items.count {
            guard let ref = find(client: client, clock: clock) else { return nil }
            let item = items[Int(ref)]
            guard item.kind != .gc, item.redone, let target = redoneTargets[ref] else {
                return findCleanStart(client: client, clock: clock)
            }
            clock = target.clock + (clock - item.clock)
            client = target.client
        }
        return nil
    }

    /// The content of item `ref`, for a copy of it (a shared type copies as a new, empty
    /// type of the same kind, as in Yjs `ContentType.copy`).
    func copiedContent(of ref: ItemRef) -> StructContent {
        let item = items[Int(ref)]
        switch item.kind {
        case .string: return .string(string(of: item))
        case .any: return .any(Array(values(of: item)))
        case .json: return .json(Array(values(of: item)))
        case .type: return .type(types[Int(item.a)].kind ?? .map)
        case .binary, .embed, .format, .doc: return payloads[Int(item.a)]
        case .deleted, .gc: return .deleted(length: Int(item.length))
        }
    }
}
