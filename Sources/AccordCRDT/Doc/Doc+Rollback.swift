/// Rolling back a transaction whose body threw, so that a failed edit leaves nothing
/// behind: not in the content, the state vector, the encoded state, nor an update.
///
/// Nothing is copied up front (a copy of the store per transaction would cost as much
/// as the edits): the transaction's own bookkeeping says what it did, and each step is
/// undone in reverse. New structs are at the end of their clients' lists (from the
/// state at the start), deletions are in the delete set, and splits are in
/// ``Store/splitLog``. Garbage collection and merging run only in the clean-up, which a
/// failed transaction skips, so deleted content is still there to revive.
extension Doc {
    /// Leaves a transaction whose body threw; the outermost one is rolled back.
    @usableFromInline
    func abandonTransaction() {
        transactionDepth -= 1
        guard transactionDepth == 0 else { return }
        store.rollBack(transaction)
        positionEpoch &+= 1
    }
}

extension Store {
    mutating func rollBack(_ tr: TransactionState) {
        // Give back the item boundaries the local shortcuts skipped (Store+ExtendLocal,
        // Store+AbsorbDeleted): from here on the plain path's structs are there.
        if tr.extendedOwnItem { _ = findCleanStart(client: tr.ownClient, clock: tr.before(tr.ownClient)) }
        if !tr.absorbedTails.isEmpty { restoreAbsorbedTails(tr) }

        for range in tr.deletes.ranges {
            forEachItem(client: range.client, clock: range.clock, length: range.length) { store, ref in
                store.revive(ref)
            }
        }
        for c in 0..<clientState.count where clientState[c] > tr.before(ClientIndex(c)) {
            removeStructs(client: ClientIndex(c), from: tr.before(ClientIndex(c)))
        }
        joinSplits()
        text.removeLast(text.count - tr.beforeTextCount)
        valuePool.removeLast(valuePool.count - tr.beforeValueCount)
        payloads.removeLast(payloads.count - tr.beforePayloadCount)
        // Cached positions may name removed or joined items.
        for t in types.indices { types[t].clearMarker() }
    }

    /// Marks a deleted item live again (it was deleted by the failed transaction).
    private mutating func revive(_ ref: ItemRef) {
        let item = items[Int(ref)]
        guard item.deleted else { return }
        items[Int(ref)].deleted = false
        if item.parentSub < 0, item.isCountable, item.parent >= 0 {
            types[Int(item.parent)].length += Int(item.length)
        }
    }

    /// Unlinks and forgets `client`'s structs from `clock` on, newest first, so that each
    /// map key's chain ends at its previous value again.
    private mutating func removeStructs(client: ClientIndex, from clock: UInt32) {
        _ = findCleanStart(client: client, clock: clock)
        let c = Int(client)
        while let last = clientStructs[c].indices.last, clientStructs[c].clock(at: last) >= clock {
            let ref = clientStructs[c][last]
            let item = items[Int(ref)]
            if item.parent >= 0 {
                let p = Int(item.parent)
                if item.parentSub < 0, item.isCountable, !item.deleted { types[p].length -= Int(item.length) }
                if item.left != noItem {
                    items[Int(item.left)].right = item.right
                } else if item.parentSub < 0, types[p].start == ref {
                    types[p].start = item.right
                }
                if item.right != noItem {
                    items[Int(item.right)].left = item.left
                } else if item.parentSub >= 0, types[p].map[item.parentSub] == ref {
                    types[p].map[item.parentSub] = item.left == noItem ? nil : item.left
                }
            }
            clientStructs[c].removeSubrange(last...last)
            // The slot is not reused: a handle to a type created by the failed body still
            // names it, and must find a deleted holder (INVALID_TYPE), not another item.
            items[Int(ref)] = Item(client: item.client, clock: item.clock, length: item.length, kind: .gc, deleted: true)
        }
        clientState[c] = clock
    }

    /// Joins the parts of every item the transaction split, newest split first, and puts
    /// back the surrogate pairs a split had replaced with U+FFFD.
    private mutating func joinSplits() {
        for record in splitLog.reversed() {
            if record.rewroteUnits, Int(record.pairAt) + 1 < text.count {
                text[Int(record.pairAt)] = record.lead
                text[Int(record.pairAt) + 1] = record.trail
            }
            let c = Int(record.client)
            guard let pos = findIndex(client: record.client, clock: record.clock), pos > 0,
                  clientStructs[c].clock(at: pos) == record.clock else { continue }
            let left = clientStructs[c][pos - 1], right = clientStructs[c][pos]
            guard canMerge(items[Int(left)], left, items[Int(right)], right) else { continue }
            merge(left, right)
            clientStructs[c].removeSubrange(pos...pos)
        }
        splitLog.removeAll()
    }
}
