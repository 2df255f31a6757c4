/// Index lookups in a type's list, starting from a cached position (the marker) so
/// that edits near the previous one cost a short walk instead of a scan.
extension Store {
    /// The item containing visible unit `index` and the visible length before it, or
    /// `(noItem, length)` when `index` is the type's length.
    @inline(__always)
    mutating func seek(type t: Int32, index: Int) -> (ref: ItemRef, before: Int) {
        let marker = types[Int(t)].markerItem, markerIndex = types[Int(t)].markerIndex
        if marker != noItem, index >= markerIndex, index < markerIndex + items[Int(marker)].visibleLength {
            // Typing and backspacing stay inside the marker's item (checked inline: the
            // call cost as much as the check).
            return (marker, markerIndex)
        }
        return walk(type: t, to: index)
    }

    /// ``seek(type:index:)`` when the marker's item does not hold `index`: a walk from
    /// the marker or the start, whichever is nearer, that moves the marker to the result.
    private mutating func walk(type t: Int32, to index: Int) -> (ref: ItemRef, before: Int) {
        // Field by field: copying the TypeRecord would retain and release its map and names.
        var ref = types[Int(t)].start
        var before = 0
        let marker = types[Int(t)].markerItem, markerIndex = types[Int(t)].markerIndex
        if marker != noItem, abs(markerIndex - index) < index {
            ref = marker
            before = markerIndex
            while before > index, items[Int(ref)].left != noItem {
                ref = items[Int(ref)].left
                before -= items[Int(ref)].visibleLength
            }
        }
        var last = noItem
        while ref != noItem {
            let visible = items[Int(ref)].visibleLength
            if visible > 0 && index < before + visible {
                types[Int(t)].markerItem = ref
                types[Int(t)].markerIndex = before
                return (ref, before)
            }
            before += visible
            last = ref
            ref = items[Int(ref)].right
        }
        if last != noItem {
            // Remember the end: the next append starts from here.
            let lastItem = items[Int(last)]
            types[Int(t)].markerItem = last
            types[Int(t)].markerIndex = before - lastItem.visibleLength
        }
        return (noItem, before)
    }

    /// The visible countable item that ends exactly at `index` (split if needed), or
    /// `noItem` for index 0: a list insert at `index` goes right after it.
    mutating func itemEnding(at index: Int, type t: Int32) -> ItemRef {
        guard index > 0 else { return noItem }
        let (ref, before) = seek(type: t, index: index - 1)
        guard ref != noItem else { return noItem }
        let item = items[Int(ref)]
        let end = index - before
        if end < Int(item.length) { split(ref, at: UInt32(end)) }
        return ref
    }

}

extension Store {
    /// Deletes `count` visible units from `index` of list type `t` (checked by the
    /// caller): Yjs's list delete, and its text delete for a text without Format items,
    /// which then has no attributes to track and no formatting gap to clean up.
    /// `collecting`: the document collects garbage (enables the backspace shortcut).
    mutating func deleteVisible(type t: Int32, at index: Int, count: Int, collecting: Bool,
                                _ tr: inout TransactionState) {
        var (ref, before) = seek(type: t, index: index)
        if ref != noItem, index > before {
            let offset = UInt32(index - before)
            if collecting, offset + UInt32(count) == items[Int(ref)].length,
               absorbDeletedTail(of: ref, from: offset, type: t, &tr) {
                markerDeleted(type: t, at: index, count: count)
                return
            }
            ref = split(ref, at: offset)
        }
        var remaining = count
        while remaining > 0, ref != noItem {
            let item = items[Int(ref)]
            if !item.deleted, item.isCountable {
                if remaining < Int(item.length) { split(ref, at: UInt32(remaining)) }
                remaining -= Int(items[Int(ref)].length)
                deleteItem(ref, &tr)
            }
            ref = items[Int(ref)].right
        }
        markerDeleted(type: t, at: index, count: count)
    }
}

extension Store {
    /// Keeps the cached position valid after `count` visible units were inserted at `index`.
    mutating func markerInserted(type t: Int32, at index: Int, count: Int) {
        let marker = types[Int(t)].markerItem
        guard marker != noItem else { return }
        if types[Int(t)].markerIndex == index, items[Int(marker)].visibleLength == 0 {
            // A deleted or format item at the insertion index may lie on either side of
            // the new content (text inserts skip deleted items and matching formats), so
            // its index is unknown: drop it, as Yjs moves such markers off invisible items.
            types[Int(t)].clearMarker()
        } else if types[Int(t)].markerIndex >= index {
            types[Int(t)].markerIndex += count
        }
    }

    /// Keeps the cached position valid after visible units `index..<index+count` were deleted.
    mutating func markerDeleted(type t: Int32, at index: Int, count: Int) {
        guard types[Int(t)].markerItem != noItem else { return }
        let m = types[Int(t)].markerIndex
        types[Int(t)].markerIndex = m >= index + count ? m - count : min(m, index)
    }
}
