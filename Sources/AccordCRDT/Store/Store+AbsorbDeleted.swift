/// Backspacing: deleting the last units of a text item whose right neighbour is the
/// deleted text just after it hands those units to that neighbour at once, instead of
/// splitting them off as an item of their own.
///
/// Why: the end of the transaction would do exactly that. Garbage collection turns the
/// split-off part into deleted content, and merging the delete set's structs
/// (``Doc/mergeDeleted(_:)``) appends the neighbour to it, because the neighbour was
/// typed right after those units (its origin is their last unit) and has the same right
/// origin. Splitting, registering the part in the client's list and merging it back
/// cost most of a backspace. The conditions below are the ones under which that merge
/// happens and nothing else does, so the document after the transaction is the same,
/// struct for struct:
/// - the transaction's update is encoded after the clean-up, from the same structs;
/// - events, which tell what a transaction deleted by item and content, get the deleted
///   text items back before they are built (``restoreAbsorbedTails(_:)``), and the
///   clean-up collects and joins them again as it would have;
/// - only with garbage collection on: without it the split-off part keeps its text
///   and joins its neighbour only if their text is adjacent;
/// - a transaction whose deletes were all joined this way skips collecting and merging
///   its delete set (``TransactionState/deletesWereAllAbsorbed``): the joined units are
///   deleted content already, and the merges that remain possible were ruled out here.
extension Store {
    /// Deletes units `offset..<length` of visible text item `ref` (of list type `t`) by
    /// joining them to its deleted right neighbour, when the clean-up would join them
    /// anyway. Returns false, having changed nothing, when it would not.
    mutating func absorbDeletedTail(of ref: ItemRef, from offset: UInt32, type t: Int32,
                                    _ tr: inout TransactionState) -> Bool {
        guard usesLocalShortcuts else { return false }
        let l = items[Int(ref)]
        guard offset > 0, offset < l.length, l.kind == .string, !l.deleted, !l.keep, l.parentSub < 0 else {
            return false
        }
        let rightRef = l.right
        guard rightRef != noItem else { return false }
        let r = items[Int(rightRef)]
        // The neighbour would be merged into the split-off part (canMerge on the part
        // Store.split would make: origin its own last unit, right origin and flags as `l`).
        guard r.deleted, r.kind == .deleted, r.client == l.client, r.clock == l.clock + l.length,
              r.originClient == l.client, r.originClock == l.lastClock,
              r.rightOriginClient == l.rightOriginClient,
              l.rightOriginClient == noClient || r.rightOriginClock == l.rightOriginClock
        else { return false }
        // Splitting inside a surrogate pair rewrites both halves (Store.split).
        let cut = Int(l.a + offset)
        guard !(UTF16.isLeadSurrogate(text[cut - 1]) && UTF16.isTrailSurrogate(text[cut])) else { return false }
        // Merging the delete set's structs starts at the struct after the deleted range:
        // here the neighbour's own right neighbour, which the plain path never tries.
        let after = r.right
        if after != noItem, items[Int(after)].client == r.client, canMerge(r, rightRef, items[Int(after)], after) {
            return false
        }
        // The neighbour follows `l` in the client's list too (same client, next clock).
        guard let position = findIndexNearLast(client: l.client, clock: l.clock) else { return false }
        let count = l.length - offset
        clientStructs[Int(l.client)].setClock(r.clock - count, at: position + 1)
        items[Int(ref)].length = offset
        items[Int(rightRef)].clock -= count
        items[Int(rightRef)].length += count
        items[Int(rightRef)].originClock = l.clock + offset - 1
        if l.parent >= 0 {
            types[Int(l.parent)].length -= Int(count)
            addChangedType(l.parent, key: -1, &tr)
        }
        tr.deletes.add(client: l.client, clock: l.clock + offset, length: count)
        tr.absorbedTails.append(.init(client: l.client, clock: l.clock + offset, length: count, textOffset: l.a + offset))
        return true
    }

    /// Splits off again the text joined to deleted neighbours in this transaction, as
    /// deleted text items, which is what the plain path has until garbage collection.
    mutating func restoreAbsorbedTails(_ tr: TransactionState) {
        for tail in tr.absorbedTails {
            _ = findCleanStart(client: tail.client, clock: tail.clock + tail.length)
            guard let ref = findCleanStart(client: tail.client, clock: tail.clock) else { continue }
            items[Int(ref)].kind = .string
            items[Int(ref)].a = tail.textOffset
        }
    }
}
