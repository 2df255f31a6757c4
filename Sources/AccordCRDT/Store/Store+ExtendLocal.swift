/// Typing: a local text insert right after this replica's newest text item joins that
/// item at once instead of becoming an item of its own.
///
/// Why: the end of the transaction would merge the two anyway (``tryMergeWithLefts``
/// appends a struct to its left neighbour when ``canMerge`` holds), and creating the
/// item, registering it and merging it back costs most of a keystroke. The conditions
/// below are exactly ``canMerge(_:_:_:_:)`` applied to the item the insert would have
/// created, so the document after the transaction is the same, struct for struct:
/// - a later split of the joined item inside the same transaction (a delete, or an
///   insert inside it) cuts it into the parts Yjs would have had: ``split`` gives the
///   right part the origin, right origin and flags the new item would have had;
/// - the transaction's update cuts the item at the transaction's start clock, with the
///   same origin (``writeClientStructs`` writes an offset struct with origin `clock-1`);
/// - events, which tell new items from old by their clock, get the boundary back
///   before they are built (``Doc/callObservers(_:)`` splits the item there).
extension Store {
    /// Whether a new item holding local text, between `left` and `right` in type `t`,
    /// would be merged into `left` at the end of the transaction. Call before the
    /// text's units are appended to ``text``. Inline: called out of line from the
    /// mutating insert paths, it was handed a copy of the whole Store.
    @inline(__always)
    func canExtendOwnLastItem(type t: Int32, left: ItemRef, right: ItemRef, ownClient own: ClientIndex) -> Bool {
        guard left != noItem, usesLocalShortcuts else { return false }
        let l = items[Int(left)]
        // The new item would be this client's next struct, right after `left` in clock
        // order and in the list, with `left` as its origin; `right` must be `left`'s
        // right neighbour already (no conflict scan, as integrate would find).
        guard l.client == own, l.clock + l.length == clientState[Int(own)],
              l.kind == .string, !l.deleted, !l.keep, l.parent == t, l.parentSub < 0,
              l.right == right
        else { return false }
        // Same right origin as `left` (canMerge's other condition).
        if right == noItem {
            guard l.rightOriginClient == noClient else { return false }
        } else {
            let r = items[Int(right)]
            guard l.rightOriginClient == r.client, l.rightOriginClock == r.clock else { return false }
        }
        // The text buffer must continue `left`'s units (merge would otherwise move them),
        // and the join must not fall inside a surrogate pair (a split there would turn
        // both halves into U+FFFD, which two separate items would not do).
        let end = Int(l.a + l.length)
        guard end == text.count, !UTF16.isLeadSurrogate(text[end - 1]) else { return false }
        // A type inside a deleted item deletes what is inserted into it (integrate).
        let holder = types[Int(t)].item
        return holder == noItem || !items[Int(holder)].deleted
    }

    /// Makes `left` take the `count` units just appended to ``text`` (after
    /// ``canExtendOwnLastItem(type:left:right:ownClient:)`` said yes): what integrating the new
    /// item and merging it would have done to the store.
    mutating func extendOwnLastItem(_ left: ItemRef, by count: Int, type t: Int32, _ tr: inout TransactionState) {
        items[Int(left)].length += UInt32(count)
        clientState[Int(tr.ownClient)] += UInt32(count)
        types[Int(t)].length += count
        if !tr.local { types[Int(t)].clearMarker() }
        addChangedType(t, key: -1, &tr)
        tr.extendedOwnItem = true
    }
}
