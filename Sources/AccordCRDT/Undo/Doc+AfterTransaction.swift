/// The hook undo managers use to watch transactions: called at the end of each one,
/// after the observers and before garbage collection, so that a manager can protect the
/// content the transaction deleted (Yjs's `afterTransaction` event).
extension Doc {
    func addAfterTransactionHandler(_ handler: @escaping (inout TransactionState) -> Void) -> Subscription {
        let id = nextSubscriptionID
        nextSubscriptionID += 1
        afterTransactionHandlers.append((id, handler))
        return Subscription { [weak self] in self?.afterTransactionHandlers.removeAll { $0.id == id } }
    }

    func callAfterTransactionHandlers(_ tr: inout TransactionState) {
        if !tr.absorbedTails.isEmpty {
            // Backspacing joined deleted text to already collected text (Store+AbsorbDeleted):
            // split it off again, so that the manager can keep it; the clean-up then
            // collects and merges what no manager kept, as after plain deletes.
            store.restoreAbsorbedTails(tr)
            tr.absorbedTails.removeAll()
        }
        for (_, handler) in afterTransactionHandlers { handler(&tr) }
    }

    /// What `tr` inserted: for each client, the clocks it added.
    func insertions(of tr: TransactionState) -> DeleteSet {
        var set = DeleteSet()
        for c in 0..<store.clientState.count {
            let before = Int(tr.before(ClientIndex(c))), after = Int(store.clientState[c])
            if after > before { set.add(client: store.clientIDs[c], clock: before, length: after - before) }
        }
        return set
    }

    /// What `tr` deleted (its delete set is normalized by now).
    func deletions(of tr: TransactionState) -> DeleteSet {
        var set = DeleteSet()
        for range in tr.deletes.ranges {
            set.add(client: store.clientIDs[Int(range.client)], clock: Int(range.clock), length: Int(range.length))
        }
        set.normalize()
        return set
    }

    /// Whether `tr` changed one of `scope`'s types or a type inside one (Yjs checks the
    /// transaction's `changedParentTypes`: live changed types and their ancestors).
    func changedInside(_ scope: UndoScope, _ tr: TransactionState) -> Bool {
        tr.changedAnyType { t in isAlive(t) && (scope.contains(t) || store.isType(t, insideAnyOf: scope)) }
    }

    /// Sets or clears ``Item/keep`` on every item of `set` inside one of `scope`'s types.
    func setKeep(_ keep: Bool, in set: DeleteSet, scope: UndoScope) {
        store.forEachItem(in: set) { store, ref in
            if store.isInside(ref, anyOf: scope) { store.setKeep(ref, keep) }
        }
    }
}
