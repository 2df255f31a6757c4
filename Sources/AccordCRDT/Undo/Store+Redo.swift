/// Re-inserting deleted items (Yjs `redoItem`), which is how undo brings content back
/// and how redo brings back what undo deleted: the item is not revived, a copy of it is
/// inserted where it was, as a new local item, so every replica converges as with any
/// other edit.
extension Store {
    /// What one undo or redo step works with.
    struct RedoContext {
        /// The deleted items this step re-inserts, in the order found.
        var itemsToRedo: [ItemRef] = []
        var redoSet: Set<ItemRef> = []
        /// What the step being applied inserted: never redone, and a map value it deleted
        /// is one the copy replaces.
        var insertions: DeleteSet
        /// The steps left on the manager's two stacks (a map value one of them deleted
        /// will be brought back by it, so the copy may go after it).
        var stacks: [[UndoStackItem]]
        /// ``UndoManager/Options/ignoreRemoteMapChanges``.
        var ignoreRemoteMapChanges = false
    }

    /// Inserts a copy of deleted item `ref` where it was; returns the copy, or nil when it
    /// cannot be redone (its parent is gone for good, or a map key it would take back was
    /// written by someone else since).
    mutating func redo(_ ref: ItemRef, _ context: inout RedoContext, _ tr: inout TransactionState) -> ItemRef? {
        if items[Int(ref)].redone { return redoneItem(of: ref) }
        let item = items[Int(ref)]
        guard item.kind != .gc, var parentItem = parentHolder(of: ref) else { return nil }
        // The parent must be alive: redo it first when this step brings it back too.
        if parentItem != noItem, items[Int(parentItem)].deleted {
            if !items[Int(parentItem)].redone {
                guard context.redoSet.contains(parentItem), redo(parentItem, &context, &tr) != nil else { return nil }
            }
            var hops = 0
            while items[Int(parentItem)].redone, let next = redoneItem(of: parentItem), hops <= items.count {
                parentItem = next
                hops += 1
            }
        }
        let parentType = parentItem == noItem ? item.parent : Int32(items[Int(parentItem)].a)
        guard parentItem == noItem || items[Int(parentItem)].kind == .type else { return nil }

        var left = noItem
        var right = noItem
        if item.parentSub < 0 {
            // In a list: between the nearest neighbours that are (or were redone into)
            // children of the parent.
            left = nearestInParent(from: item.left, parentItem: parentItem, towardsLeft: true)
            right = nearestInParent(from: ref, parentItem: parentItem, towardsLeft: false)
        } else if item.right != noItem, !context.ignoreRemoteMapChanges {
            // A map value that was overwritten: only redone when every later value of the
            // key is one this undo or redo removes or brings back.
            left = ref
            while left != noItem, items[Int(left)].right != noItem {
                let next = items[Int(left)].right
                let id = ID(client: clientIDs[Int(items[Int(next)].client)], clock: Int(items[Int(next)].clock))
                guard items[Int(next)].redone || context.insertions.contains(id)
                        || context.stacks.contains(where: { $0.contains { $0.deletions.contains(id) } }) else { break }
                left = next
                var hops = 0
                while items[Int(left)].redone, let copy = redoneItem(of: left), hops <= items.count {
                    left = copy
                    hops += 1
                }
            }
            if left != noItem, items[Int(left)].right != noItem { return nil }
        } else {
            left = types[Int(parentType)].map[item.parentSub] ?? noItem
        }

        let own = tr.ownClient
        let clock = clientState[Int(own)]
        let origin = left == noItem ? nil : StoreID(client: items[Int(left)].client, clock: items[Int(left)].lastClock)
        let rightOrigin = right == noItem ? nil : StoreID(client: items[Int(right)].client, clock: items[Int(right)].clock)
        let copy = integrateNewItem(copiedContent(of: ref), client: own, clock: clock,
                                    origin: origin, rightOrigin: rightOrigin, left: left, right: right,
                                    parent: parentType, parentSub: item.parentSub, &tr)
        items[Int(ref)].redone = true
        redoneTargets[ref] = StoreID(client: own, clock: clock)
        types[Int(parentType)].clearMarker()
        setKeep(copy, true)
        return copy
    }

    /// From `start`, the first item (walking left or right) that is, or was redone into,
    /// a child of the type held by `parentItem`.
    private mutating func nearestInParent(from start: ItemRef, parentItem: ItemRef, towardsLeft: Bool) -> ItemRef {
        var candidate = start
        while candidate != noItem {
            var trace = candidate
            var hops = 0
            while trace != noItem, parentHolder(of: trace) != parentItem, hops <= items.count {
                trace = redoneItem(of: trace) ?? noItem
                hops += 1
            }
            if trace != noItem, parentHolder(of: trace) == parentItem { return trace }
            candidate = towardsLeft ? items[Int(candidate)].left : items[Int(candidate)].right
        }
        return noItem
    }
}
