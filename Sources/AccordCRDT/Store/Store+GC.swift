/// Garbage collection of deleted content (design/yjs-wire-format.md 4.4).
extension Store {
    /// Replaces the content of every deleted item in `ds` with a Deleted marker of the
    /// same length; the children of a deleted shared type become GC structs.
    mutating func collectGarbage(_ ds: LocalDeleteSet) {
        for range in ds.ranges.reversed() {
            let c = Int(range.client)
            guard var pos = findIndexNearLast(client: range.client, clock: range.clock) else { continue }
            while pos < clientStructs[c].count {
                let ref = clientStructs[c][pos]
                let item = items[Int(ref)]
                if item.clock >= range.end { break }
                if item.deleted, !item.keep, item.kind != .gc { collect(ref, parentCollected: false) }
                pos += 1
            }
        }
    }

    /// Iterative version of Yjs's `Item.gc`, so nesting depth cannot overflow the stack.
    private mutating func collect(_ root: ItemRef, parentCollected: Bool) {
        // Text and values, nearly everything collected, contain nothing: no work list (an
        // array allocated and freed per collected item).
        guard items[Int(root)].kind == .type else {
            dropContent(root, replaceWithGC: parentCollected)
            return
        }
        var work: [(ItemRef, Bool)] = [(root, parentCollected)]
        while let (ref, replaceWithGC) = work.popLast() {
            let item = items[Int(ref)]
            guard item.deleted, item.kind != .gc else { continue }
            if item.kind == .type {
                let t = Int(item.a)
                var child = types[t].start
                while child != noItem {
                    work.append((child, true))
                    child = items[Int(child)].right
                }
                for (_, last) in types[t].map {
                    var entry = last
                    while entry != noItem {
                        work.append((entry, true))
                        entry = items[Int(entry)].left
                    }
                }
                types[t].start = noItem
                types[t].map = [:]
                types[t].clearMarker()
            }
            dropContent(ref, replaceWithGC: replaceWithGC)
        }
    }

    /// Replaces a deleted item's content with a Deleted marker, or the whole item with a
    /// GC struct when its parent is collected too.
    private mutating func dropContent(_ ref: ItemRef, replaceWithGC: Bool) {
        let item = items[Int(ref)]
        guard item.deleted, item.kind != .gc else { return }
        if replaceWithGC {
            // The struct keeps its place in the client list but leaves its parent.
            items[Int(ref)] = Item(client: item.client, clock: item.clock, length: item.length,
                                   kind: .gc, deleted: true)
        } else {
            items[Int(ref)].kind = .deleted
            items[Int(ref)].a = 0
            items[Int(ref)].b = 0
        }
        if item.kind == .any || item.kind == .json {
            // Its pool slots stay (offsets are positions), but what they held goes now:
            // an overwritten record field's string or object is freed, not kept to reload.
            for slot in Int(item.a)..<Int(item.a + item.length) { valuePool[slot] = .undefined }
        }
    }
}
