/// YATA integration as Yjs implements it (design/yjs-wire-format.md section 4).
extension Store {
    /// Links item `ref` into its parent between its resolved `left` and `right`, running
    /// the conflict loop against concurrent inserts, then registers it in the store.
    /// The item's `left`/`right` must be the items holding its origin / right origin.
    mutating func integrate(_ ref: ItemRef, _ tr: inout TransactionState) {
        let r = Int(ref)
        let parent = Int(items[r].parent)
        var left = items[r].left
        let right = items[r].right
        let parentSub = items[r].parentSub

        // A map key's current item, once looked up (nil inside: the key has none).
        var keyHead: ItemRef?? = nil
        let needsConflictScan: Bool
        if left == noItem, right == noItem, parentSub >= 0 {
            // A key the map never held has nothing to conflict with, and its item links
            // in alone: one look-up of the key instead of three (a records batch sets
            // about ten new keys per record, several in a map of every record).
            let head = types[parent].map[parentSub]
            keyHead = .some(head)
            needsConflictScan = head != nil
        } else if left == noItem {
            needsConflictScan = right == noItem || items[Int(right)].left != noItem
        } else {
            needsConflictScan = items[Int(left)].right != right
        }
        if needsConflictScan {
            left = resolveConflicts(ref, left: left, right: right)
            items[r].left = left
        }

        // Link.
        var newRight: ItemRef
        if left != noItem {
            newRight = items[Int(left)].right
            items[Int(left)].right = ref
        } else if parentSub >= 0 {
            // The conflict scan changes no links, so a look-up before it still holds.
            newRight = (keyHead ?? types[parent].map[parentSub]) ?? noItem
            while newRight != noItem, items[Int(newRight)].left != noItem { newRight = items[Int(newRight)].left }
        } else {
            newRight = types[parent].start
            types[parent].start = ref
        }
        items[r].right = newRight
        if newRight != noItem {
            items[Int(newRight)].left = ref
        } else if parentSub >= 0 {
            types[parent].map[parentSub] = ref
            if left != noItem { deleteItem(left, &tr) }
        }
        if parentSub < 0, items[r].isCountable, !items[r].deleted {
            types[parent].length += Int(items[r].length)
        }
        // Local edits keep the cached position up to date themselves; a remote insert
        // could land anywhere, so it drops it.
        if !tr.local { types[parent].clearMarker() }
        addStruct(ref)
        switch items[r].kind {
        case .type: types[Int(items[r].a)].item = ref
        case .format: types[parent].hasFormatting = true
        default: break
        }
        addChangedType(Int32(parent), key: parentSub, &tr)
        let parentItem = types[parent].item
        if (parentItem != noItem && items[Int(parentItem)].deleted) || (parentSub >= 0 && newRight != noItem) {
            deleteItem(ref, &tr)
        }
    }

    /// The conflict loop: among concurrent items between left and right, find the
    /// left neighbour that orders this item deterministically on every replica.
    /// `mutating` though it changes nothing: called from `integrate`, a non-mutating
    /// method is handed a copy of the whole Store (a memcpy per integrated item).
    private mutating func resolveConflicts(_ ref: ItemRef, left startLeft: ItemRef, right: ItemRef) -> ItemRef {
        let item = items[Int(ref)]
        let parent = Int(item.parent)
        var left = startLeft
        var o: ItemRef
        if left != noItem {
            o = items[Int(left)].right
        } else if item.parentSub >= 0 {
            o = types[parent].map[item.parentSub] ?? noItem
            while o != noItem, items[Int(o)].left != noItem { o = items[Int(o)].left }
        } else {
            o = types[parent].start
        }
        var conflicting = Set<ItemRef>()
        var beforeOrigin = Set<ItemRef>()
        let myClient = clientIDs[Int(item.client)]
        while o != noItem, o != right {
            beforeOrigin.insert(o)
            conflicting.insert(o)
            let other = items[Int(o)]
            if other.originClient == item.originClient && (item.originClient == noClient || other.originClock == item.originClock) {
                if clientIDs[Int(other.client)] < myClient {
                    left = o
                    conflicting.removeAll(keepingCapacity: true)
                } else if other.rightOriginClient == item.rightOriginClient
                    && (item.rightOriginClient == noClient || other.rightOriginClock == item.rightOriginClock)
                {
                    break
                }
            } else if other.hasOrigin, let originItem = find(client: other.originClient, clock: other.originClock),
                beforeOrigin.contains(originItem)
            {
                if !conflicting.contains(originItem) {
                    left = o
                    conflicting.removeAll(keepingCapacity: true)
                }
            } else {
                break
            }
            o = other.right
        }
        return left
    }

    /// Records that `type` changed (for observers), unless the type itself is new in
    /// this transaction or deleted.
    mutating func addChangedType(_ type: Int32, key: Int32, _ tr: inout TransactionState) {
        let holder = types[Int(type)].item
        if holder == noItem
            || (items[Int(holder)].clock < tr.before(items[Int(holder)].client) && !items[Int(holder)].deleted)
        {
            tr.noteChanged(type: type, key: key)
        }
    }

    /// Marks an item deleted (and, for a shared type, everything inside it).
    /// Iterative, so hostile nesting depth cannot overflow the stack.
    mutating func deleteItem(_ ref: ItemRef, _ tr: inout TransactionState) {
        // Text and values, nearly every delete, contain nothing: no work list (an array
        // allocated and freed per deleted item).
        guard items[Int(ref)].kind == .type else {
            markDeleted(ref, &tr)
            return
        }
        var work: [ItemRef] = [ref]
        while let next = work.popLast() {
            guard markDeleted(next, &tr), items[Int(next)].kind == .type else { continue }
            let t = Int(items[Int(next)].a)
            var child = types[t].start
            while child != noItem {
                work.append(child)
                child = items[Int(child)].right
            }
            for (_, valueItem) in types[t].map { work.append(valueItem) }
        }
    }

    /// Marks one item deleted, not what it contains; false when it already was.
    @discardableResult
    private mutating func markDeleted(_ ref: ItemRef, _ tr: inout TransactionState) -> Bool {
        let i = Int(ref)
        let item = items[i]
        if item.deleted {
            if item.clock < tr.before(item.client) { tr.mergeStructs.append(ref) }
            return false
        }
        if item.parentSub < 0, item.isCountable, item.parent >= 0 {
            types[Int(item.parent)].length -= Int(item.length)
        }
        items[i].deleted = true
        tr.deletes.add(client: item.client, clock: item.clock, length: item.length)
        if item.parent >= 0 { addChangedType(item.parent, key: item.parentSub, &tr) }
        return true
    }
}
