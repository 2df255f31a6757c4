/// Joining neighbouring structs after a transaction, exactly where Yjs joins them, so
/// that a later full-state update has Yjs's bytes (design/yjs-wire-format.md 2.7).
extension Store {
    /// Whether `right` can be appended to `left` (both in the same client list, adjacent).
    func canMerge(_ l: Item, _ lRef: ItemRef, _ r: Item, _ rRef: ItemRef) -> Bool {
        guard l.deleted == r.deleted, (l.kind == .gc) == (r.kind == .gc), !l.redone, !r.redone else { return false }
        if l.kind == .gc { return true }
        return l.kind == r.kind && l.kind.isMergeable
            && r.originClient == l.client && r.originClock == l.lastClock
            && l.right == rRef
            && l.rightOriginClient == r.rightOriginClient
            && (l.rightOriginClient == noClient || l.rightOriginClock == r.rightOriginClock)
            && l.clock + l.length == r.clock
    }

    /// Appends `right`'s content and length to `left` and unlinks `right`.
    mutating func merge(_ lRef: ItemRef, _ rRef: ItemRef) {
        let l = items[Int(lRef)]
        let r = items[Int(rRef)]
        switch l.kind {
        case .string:
            if l.a + l.length != r.a {
                // Not adjacent in the text buffer: move both runs to its end.
                let combined = string(of: l) + string(of: r)
                items[Int(lRef)].a = UInt32(text.count)
                text.append(contentsOf: combined)
            }
        case .any, .json:
            if l.a + l.length != r.a {
                // Not adjacent in the pool: `right`'s values go after `left`'s, moving
                // `left`'s to the end first unless they are there already. (Arrays, not
                // slices: a slice of the pool would make the append copy all of it.)
                if Int(l.a + l.length) != valuePool.count {
                    let moved = Array(values(of: l))
                    items[Int(lRef)].a = UInt32(valuePool.count)
                    valuePool.append(contentsOf: moved)
                }
                let appended = Array(values(of: r))
                valuePool.append(contentsOf: appended)
            }
        default:
            break
        }
        if l.kind != .gc {
            if r.keep { items[Int(lRef)].keep = true }
            items[Int(lRef)].right = r.right
            if r.right != noItem { items[Int(r.right)].left = lRef }
            if r.parentSub >= 0, r.parent >= 0, types[Int(r.parent)].map[r.parentSub] == rRef {
                types[Int(r.parent)].map[r.parentSub] = lRef
            }
            let p = Int(l.parent)
            if p >= 0, types[p].markerItem == rRef {
                types[p].markerItem = lRef
                types[p].markerIndex -= l.visibleLength
            }
        }
        items[Int(lRef)].length += r.length
        freeItems.append(rRef)
    }

    /// Merges the struct at `pos` (and those left of it) into their left neighbours as
    /// far as possible; returns how many structs were removed from the client list.
    @discardableResult
    mutating func tryMergeWithLefts(client: Int, pos: Int) -> Int {
        var i = pos
        while i > 0 {
            let rRef = clientStructs[client][i]
            // The left neighbour in a gap-free client list ends at r.clock - 1, so an item
            // whose origin is anything else cannot join it: decided without loading the
            // left item, which is usually elsewhere in the document and not in the cache.
            if items[Int(rRef)].kind != .gc, items[Int(rRef)].originClock &+ 1 != items[Int(rRef)].clock { break }
            let lRef = clientStructs[client][i - 1]
            guard canMerge(items[Int(lRef)], lRef, items[Int(rRef)], rRef) else { break }
            merge(lRef, rRef)
            i -= 1
        }
        let merged = pos - i
        if merged > 0 {
            clientStructs[client].removeSubrange((pos + 1 - merged)...pos)
        }
        return merged
    }
}
