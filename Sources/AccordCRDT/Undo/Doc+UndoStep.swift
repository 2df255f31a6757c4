/// Applying one undo or redo step inside the current transaction (the body of Yjs's
/// `popStackItem` loop).
extension Doc {
    /// Deletes what `item` inserted and re-inserts what it deleted, within `scope`.
    /// Returns whether anything changed. Call inside a transaction.
    func applyStep(_ item: UndoStackItem, scope: UndoScope, stacks: [[UndoStackItem]], options: UndoManager.Options) -> Bool {
        var toDelete: [ItemRef] = []
        store.forEachItem(in: item.insertions) { store, ref in
            var current = ref
            if store.items[Int(ref)].redone {
                // Inserted content that a later step re-inserted: delete the newest copy.
                let found = store.items[Int(ref)]
                guard let newest = store.followRedone(client: found.client, clock: found.clock) else { return }
                current = newest
            }
            if !store.items[Int(current)].deleted, store.isInside(current, anyOf: scope) { toDelete.append(current) }
        }
        var context = Store.RedoContext(
            insertions: item.insertions, stacks: stacks, ignoreRemoteMapChanges: options.ignoreRemoteMapChanges)
        store.forEachItem(in: item.deletions) { store, ref in
            let found = store.items[Int(ref)]
            let id = ID(client: store.clientIDs[Int(found.client)], clock: Int(found.clock))
            // Content inserted and deleted within the step is not brought back.
            guard store.isInside(ref, anyOf: scope), !item.insertions.contains(id) else { return }
            if context.redoSet.insert(ref).inserted { context.itemsToRedo.append(ref) }
        }
        var changed = false
        for ref in context.itemsToRedo {
            if store.redo(ref, &context, &transaction) != nil { changed = true }
        }
        // Children before parents, as in Yjs (the parents' deletion reaches them anyway).
        for ref in toDelete.reversed() where !store.items[Int(ref)].deleted {
            if let filter = options.deleteFilter, !filter(deleteCandidate(ref)) { continue }
            let parent = store.items[Int(ref)].parent
            store.deleteItem(ref, &transaction)
            if parent >= 0 { store.types[Int(parent)].clearMarker() }
            changed = true
        }
        return changed
    }

    /// What a ``UndoManager/Options/deleteFilter`` sees of an item.
    private func deleteCandidate(_ ref: ItemRef) -> UndoDeleteCandidate {
        let item = store.items[Int(ref)]
        let id = ID(client: store.clientIDs[Int(item.client)], clock: Int(item.clock))
        let type: YValue? = item.kind == .type ? typeValue(Int32(item.a)) : nil
        let text: String? = item.kind == .string ? String(decoding: store.string(of: item), as: UTF16.self) : nil
        return UndoDeleteCandidate(id: id, length: Int(item.length), type: type, text: text, parent: typeValue(item.parent))
    }
}
