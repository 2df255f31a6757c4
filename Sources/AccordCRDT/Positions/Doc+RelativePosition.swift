/// Making relative positions from indices and resolving them back, after Yjs's
/// `createRelativePositionFromTypeIndex` and `createAbsolutePositionFromRelativePosition`.
extension Doc {
    /// The relative position at `index` of list type `t` (text or array).
    func relativePosition(type t: Int32, index: Int, association: RelativePosition.Association) throws(AccordError) -> RelativePosition {
        let length = store.types[Int(t)].length
        guard index >= 0, index <= length else {
            throw AccordError(.indexOutOfBounds, "index \(index) is outside 0...\(length)")
        }
        let assoc: Int64 = association == .after ? 0 : -1
        // Stick to the unit after the index, or (before) the unit before it.
        var target = association == .after ? index : index - 1
        guard target >= 0 else { return position(in: t, item: nil, assoc: assoc) }
        var ref = store.types[Int(t)].start
        var last = noItem
        while ref != noItem {
            let item = store.items[Int(ref)]
            if !item.deleted, item.isCountable {
                if Int(item.length) > target {
                    let id = ID(client: store.clientIDs[Int(item.client)], clock: Int(item.clock) + target)
                    return position(in: t, item: id, assoc: assoc)
                }
                target -= Int(item.length)
            }
            last = ref
            ref = item.right
        }
        if association == .before, last != noItem {
            // Past the last visible unit: stick to the list's last unit (Yjs: `t.lastId`).
            let item = store.items[Int(last)]
            return position(in: t, item: ID(client: store.clientIDs[Int(item.client)], clock: Int(item.lastClock)), assoc: assoc)
        }
        return position(in: t, item: nil, assoc: assoc)
    }

    private func position(in t: Int32, item: ID?, assoc: Int64) -> RelativePosition {
        let holder = store.types[Int(t)].item
        if holder == noItem {
            return RelativePosition(type: nil, typeName: store.types[Int(t)].rootName, item: item, assoc: assoc)
        }
        let h = store.items[Int(holder)]
        return RelativePosition(type: ID(client: store.clientIDs[Int(h.client)], clock: Int(h.clock)),
                                typeName: nil, item: item, assoc: assoc)
    }

    /// Where `position` is on this replica: its type and index. Nil when this replica
    /// has not received what it names yet, or its type was deleted.
    ///
    /// A unit that was deleted and brought back by an undo is followed to its copy; a
    /// deleted unit resolves to where it was. Reading only: no item is split.
    public func resolve(_ position: RelativePosition) -> AbsolutePosition? {
        let association = position.association
        if let id = position.item {
            guard let (ref, offset) = newestCopy(of: id) else { return nil }
            let item = store.items[Int(ref)]
            guard item.parent >= 0, isAlive(item.parent) else { return nil }
            let within = (item.deleted || !item.isCountable) ? 0 : offset + (association == .after ? 0 : 1)
            let index = within + unitsBefore(ref, in: item.parent)
            return AbsolutePosition(type: typeValue(item.parent), index: index, association: association)
        }
        let t: Int32
        if let name = position.typeName {
            guard let root = store.roots[name] else {
                // A root this replica has not heard of: nothing here to resolve in.
                return nil
            }
            t = root
        } else if let id = position.type {
            guard let (ref, _) = newestCopy(of: id), store.items[Int(ref)].kind == .type else { return nil }
            t = Int32(store.items[Int(ref)].a)
            guard isAlive(t) else { return nil }
        } else {
            return nil
        }
        let index = association == .after ? store.types[Int(t)].length : 0
        return AbsolutePosition(type: typeValue(t), index: index, association: association)
    }

    /// The item holding unit `id` (after following redone copies) and the unit's offset in it.
    private func newestCopy(of id: ID) -> (ItemRef, Int)? {
        guard let client = store.clientIndex[id.client], id.clock >= 0, id.clock < store.state(of: id.client) else {
            return nil
        }
        var c = client, clock = UInt32(id.clock)
        for _ in 0...store.items.count {
            guard let ref = store.find(client: c, clock: clock) else { return nil }
            let item = store.items[Int(ref)]
            guard item.kind != .gc else { return nil }
            guard item.redone, let target = store.redoneTargets[ref] else { return (ref, Int(clock - item.clock)) }
            clock = target.clock + (clock - item.clock)
            c = target.client
        }
        return nil
    }
}

extension YText {
    /// A relative position at UTF-16 offset `index`.
    /// - Throws: ``ErrorCode/indexOutOfBounds``.
    public func relativePosition(at index: Int, association: RelativePosition.Association = .after) throws(AccordError) -> RelativePosition {
        try doc.relativePosition(type: type, index: index, association: association)
    }

    /// A selection `start..<end` (UTF-16 offsets, in either order) as two relative
    /// positions, both sticking to the unit after them, as editor bindings share
    /// selections in presence.
    /// - Throws: ``ErrorCode/indexOutOfBounds``.
    public func indexRangeToPosRange(_ start: Int, _ end: Int) throws(AccordError) -> (start: RelativePosition, end: RelativePosition) {
        (try relativePosition(at: start), try relativePosition(at: end))
    }

    /// The offsets a selection's positions resolve to in this text; nil when one of them
    /// is not in it (or not known here yet).
    public func posRangeToIndexRange(_ range: (start: RelativePosition, end: RelativePosition)) -> (start: Int, end: Int)? {
        guard let start = doc.resolve(range.start), let end = doc.resolve(range.end),
              doc.typeIndex(of: start.type) == type, doc.typeIndex(of: end.type) == type else { return nil }
        return (start.index, end.index)
    }
}

extension YArray {
    /// A relative position before element `index`.
    /// - Throws: ``ErrorCode/indexOutOfBounds``.
    public func relativePosition(at index: Int, association: RelativePosition.Association = .after) throws(AccordError) -> RelativePosition {
        try doc.relativePosition(type: type, index: index, association: association)
    }
}

extension Store {
    /// The visible units of list type `t` before item `ref`.
    ///
    /// Walks from the item towards both ends at once and stops at whichever it reaches
    /// first: the start, the end (the type's length is known) or the type's cached
    /// position, which says how many units precede its item. Yjs walks left only; on
    /// a long document the nearer anchor is on average a third as far.
    func visibleUnits(before ref: ItemRef, in t: Int32) -> Int {
        let marker = types[Int(t)].markerItem, markerIndex = types[Int(t)].markerIndex
        let total = types[Int(t)].length
        return items.withUnsafeBufferPointer { items -> Int in
            var left = items[Int(ref)].left
            var right = ref
            var leftSum = 0   // visible units between `left` (exclusive) and `ref`
            var rightSum = 0  // visible units from `ref` up to `right` (exclusive)
            while true {
                if right == noItem { return total - rightSum }
                if right == marker { return markerIndex - rightSum }
                rightSum += items[Int(right)].visibleLength
                right = items[Int(right)].right
                if left == noItem { return leftSum }
                if left == marker { return markerIndex + items[Int(left)].visibleLength + leftSum }
                leftSum += items[Int(left)].visibleLength
                left = items[Int(left)].left
            }
        }
    }
}
