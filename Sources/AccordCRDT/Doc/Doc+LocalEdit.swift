/// Local edits shared by the list and map types: create an item with this replica's
/// next clock and integrate it.
extension Doc {
    /// Inserts `contents` (already grouped into items) at visible `index` of a list.
    func listInsert(type t: Int32, at index: Int, _ contents: [StructContent]) throws(AccordError) -> [ItemRef] {
        try checkAlive(t)
        guard index >= 0, index <= store.types[Int(t)].length else {
            throw AccordError(.indexOutOfBounds, "index \(index) is outside 0...\(store.types[Int(t)].length)")
        }
        return try withTransaction { (tr) throws(AccordError) in
            var left = store.itemEnding(at: index, type: t)
            var refs: [ItemRef] = []
            var count = 0
            for content in contents {
                let right = left == noItem ? store.types[Int(t)].start : store.items[Int(left)].right
                left = store.insertLocalItem(content, type: t, left: left, right: right, &tr)
                refs.append(left)
                count += content.isCountable ? content.length : 0
            }
            store.markerInserted(type: t, at: index, count: count)
            return refs
        }
    }

    /// Deletes `count` visible units from `index` in a list.
    func listDelete(type t: Int32, at index: Int, count: Int) throws(AccordError) {
        try checkAlive(t)
        let length = store.types[Int(t)].length
        guard index >= 0, count >= 0, index + count <= length else {
            throw AccordError(.indexOutOfBounds, "range \(index)..<\(index + count) is outside 0..<\(length)")
        }
        guard count > 0 else { return }
        try withTransaction { (tr) throws(AccordError) in store.deleteVisible(type: t, at: index, count: count, collecting: gc, &tr) }
    }

    /// Sets map key `key` of type `t` to `content`.
    @discardableResult
    func mapSet(type t: Int32, key: String, _ content: StructContent) throws(AccordError) -> ItemRef {
        try mapInsert(type: t, key: key) { store, left, k, tr in
            store.insertLocalItem(content, type: t, left: left, right: noItem, parentSub: k, &tr)
        }
    }

    /// ``mapSet(type:key:_:)`` for one plain value (not bytes, which are Binary content):
    /// stored straight into the value pool, without the one-element array that
    /// `StructContent.any` would make and drop for every field of every record saved.
    @discardableResult
    func mapSetValue(type t: Int32, key: String, _ value: AnyValue) throws(AccordError) -> ItemRef {
        try mapInsert(type: t, key: key) { store, left, k, tr in
            store.insertLocalValue(value, type: t, left: left, parentSub: k, &tr)
        }
    }

    /// Runs `insert` with the key's current item (the new item's left) and the key's
    /// index, in a transaction, once `t` is known to be alive.
    @inline(__always)
    private func mapInsert(
        type t: Int32, key: String, _ insert: (inout Store, ItemRef, Int32, inout TransactionState) -> ItemRef
    ) throws(AccordError) -> ItemRef {
        try checkAlive(t)
        return try withTransaction { (tr) throws(AccordError) in
            let k = store.intern(key: key)
            let left = store.types[Int(t)].map[k] ?? noItem
            return insert(&store, left, k, &tr)
        }
    }

    func mapDelete(type t: Int32, key: String) throws(AccordError) {
        try checkAlive(t)
        guard let k = store.knownKey(key), let ref = store.types[Int(t)].map[k], !store.items[Int(ref)].deleted else { return }
        try withTransaction { (tr) throws(AccordError) in store.deleteItem(ref, &tr) }
    }

    /// Editing a type that was deleted (or garbage-collected) is refused.
    @inline(__always)
    func checkAlive(_ t: Int32) throws(AccordError) {
        let holder = store.types[Int(t)].item
        if holder != noItem, store.items[Int(holder)].deleted {
            throw AccordError(.invalidType, "the shared type was deleted")
        }
    }
}
