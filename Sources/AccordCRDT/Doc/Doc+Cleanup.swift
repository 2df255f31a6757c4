/// What happens when a transaction ends, in Yjs's order: observers, text clean-up,
/// garbage collection, struct merging, then the update event.
extension Doc {
    func cleanup(_ tr: inout TransactionState) {
        // Guarded here: passing the client IDs retains them, even when there is nothing to sort.
        if tr.deletes.ranges.count > 1 { tr.deletes.normalize(clientIDs: store.clientIDs) }
        // Only remote changes or observers give callObservers anything to do.
        if !tr.local || !typeObservers.isEmpty || !deepObservers.isEmpty { callObservers(&tr) }
        if !afterTransactionHandlers.isEmpty { callAfterTransactionHandlers(&tr) }
        if tr.needFormattingCleanup { cleanupFormattingAfterRemote(tr) }

        if !tr.deletes.isEmpty, !tr.deletesWereAllAbsorbed {
            if gc { store.collectGarbage(tr.deletes) }
            mergeDeleted(tr.deletes)
        }
        // Merge what this transaction appended, walking each changed client from the end.
        for c in 0..<store.clientState.count {
            let before = tr.before(ClientIndex(c))
            guard store.clientState[c] != before else { continue }
            let firstChange = max(store.findIndexNearLast(client: ClientIndex(c), clock: before) ?? store.clientStructs[c].count, 1)
            var i = store.clientStructs[c].count - 1
            while i >= firstChange {
                i -= 1 + store.tryMergeWithLefts(client: c, pos: i)
            }
        }
        for ref in tr.mergeStructs.reversed() {
            let item = store.items[Int(ref)]
            // A struct merged away earlier in this loop no longer sits at its clock.
            guard let pos = store.findIndexNearLast(client: item.client, clock: item.clock),
                  store.clientStructs[Int(item.client)][pos] == ref else { continue }
            if pos + 1 < store.clientStructs[Int(item.client)].count,
               store.tryMergeWithLefts(client: Int(item.client), pos: pos + 1) > 1 { continue }
            if pos > 0 { store.tryMergeWithLefts(client: Int(item.client), pos: pos) }
        }

        // `tr.ownClient` is this replica's client, interned when the transaction began.
        if !tr.local, store.clientState[Int(tr.ownClient)] != tr.before(tr.ownClient) {
            // Someone else wrote with our client ID: take a fresh one, as Yjs does.
            clientID = ClientID(UInt32.random(in: .min ... .max))
        }

        if !updateHandlers.isEmpty, let update = store.transactionUpdate(tr) {
            for (_, handler) in updateHandlers { handler(update, tr.origin) }
        }
    }

    /// Tries to merge the structs touched by a delete set with their neighbours.
    private func mergeDeleted(_ ds: LocalDeleteSet) {
        for range in ds.ranges.reversed() {
            let ci = Int(range.client)
            guard let lastPos = store.findIndexNearLast(client: range.client, clock: range.end - 1) else { continue }
            var si = min(store.clientStructs[ci].count - 1, lastPos + 1)
            while si > 0, store.items[Int(store.clientStructs[ci][si])].clock >= range.clock {
                si -= 1 + store.tryMergeWithLefts(client: ci, pos: si)
            }
        }
    }


}
