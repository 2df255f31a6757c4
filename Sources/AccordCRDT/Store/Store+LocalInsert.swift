/// Creating items, for local edits and for structs arriving in updates.
extension Store {
    /// Stores `content`, creates its item at `(client, clock)` with the given origins,
    /// between the already resolved neighbours `left` and `right`, and integrates it.
    @discardableResult
    mutating func integrateNewItem(_ content: StructContent, client: ClientIndex, clock: UInt32,
                                   origin: StoreID?, rightOrigin: StoreID?, left: ItemRef, right: ItemRef,
                                   parent: Int32, parentSub: Int32, _ tr: inout TransactionState) -> ItemRef {
        let (kind, a, b) = store(content)
        return integrateNewItem(kind: kind, a: a, b: b, length: UInt32(content.length), client: client, clock: clock,
                                origin: origin, rightOrigin: rightOrigin, left: left, right: right,
                                parent: parent, parentSub: parentSub, &tr)
    }

    /// ``integrateNewItem(_:client:clock:origin:rightOrigin:left:right:parent:parentSub:_:)``
    /// for content already in the store (`kind`, `a`, `b` as ``Store/store(_:)`` returns them).
    @discardableResult
    mutating func integrateNewItem(kind: ContentKind, a: UInt32, b: UInt32, length: UInt32,
                                   client: ClientIndex, clock: UInt32,
                                   origin: StoreID?, rightOrigin: StoreID?, left: ItemRef, right: ItemRef,
                                   parent: Int32, parentSub: Int32, _ tr: inout TransactionState) -> ItemRef {
        var item = Item(client: client, clock: clock, length: length, kind: kind)
        if let origin {
            item.originClient = origin.client
            item.originClock = origin.clock
        }
        if let rightOrigin {
            item.rightOriginClient = rightOrigin.client
            item.rightOriginClock = rightOrigin.clock
        }
        item.left = left
        item.right = right
        item.parent = parent
        item.parentSub = parentSub
        item.a = a
        item.b = b
        item.deleted = kind == .deleted
        let ref = allocate(item)
        integrate(ref, &tr)
        if kind == .deleted {
            // Yjs's ContentDeleted.integrate: content the sender already collected joins
            // this transaction's delete set, so events, GC and merging see it as deleted.
            tr.deletes.add(client: client, clock: clock, length: item.length)
        }
        return ref
    }

    /// Integrates a new local item holding `content` between `left` and `right`.
    @discardableResult
    mutating func insertLocalItem(_ content: StructContent, type t: Int32, left: ItemRef, right: ItemRef,
                                  parentSub: Int32 = -1, _ tr: inout TransactionState) -> ItemRef {
        let origin = left == noItem ? nil : StoreID(client: items[Int(left)].client, clock: items[Int(left)].lastClock)
        let rightOrigin = right == noItem ? nil : StoreID(client: items[Int(right)].client, clock: items[Int(right)].clock)
        return integrateNewItem(content, client: tr.ownClient, clock: clientState[Int(tr.ownClient)],
                                origin: origin, rightOrigin: rightOrigin, left: left, right: right,
                                parent: t, parentSub: parentSub, &tr)
    }
}
