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

    /// Inserts local text (UTF-16 `units`, `count` of them) between `left` and `right` of
    /// list type `t`: appended to `left` when the clean-up would merge it there anyway
    /// (``extendOwnLastItem(_:count:type:left:right:_:)``), else as a new item.
    /// Returns the item that now ends with the text.
    @discardableResult
    mutating func insertLocalText<Units: Collection<UInt16>>(
        _ units: Units, count: Int, type t: Int32, left: ItemRef, right: ItemRef, _ tr: inout TransactionState
    ) -> ItemRef {
        if extendOwnLastItem(units, count: count, type: t, left: left, right: right, &tr) { return left }
        // Units appended one by one: no intermediate array, and for a keystroke's one or
        // two units cheaper than the generic append(contentsOf:).
        let offset = UInt32(text.count)
        for unit in units { text.append(unit) }
        let origin = left == noItem ? nil : StoreID(client: items[Int(left)].client, clock: items[Int(left)].lastClock)
        let rightOrigin = right == noItem ? nil : StoreID(client: items[Int(right)].client, clock: items[Int(right)].clock)
        return integrateNewItem(kind: .string, a: offset, b: 0, length: UInt32(count),
                                client: tr.ownClient, clock: clientState[Int(tr.ownClient)],
                                origin: origin, rightOrigin: rightOrigin, left: left, right: right,
                                parent: t, parentSub: -1, &tr)
    }

    /// Integrates a new local item holding `content` between `left` and `right`.
    /// Text in a list goes through ``insertLocalText(_:count:type:left:right:_:)``.
    @discardableResult
    mutating func insertLocalItem(_ content: StructContent, type t: Int32, left: ItemRef, right: ItemRef,
                                  parentSub: Int32 = -1, _ tr: inout TransactionState) -> ItemRef {
        if parentSub < 0, case .string(let units) = content {
            return insertLocalText(units, count: units.count, type: t, left: left, right: right, &tr)
        }
        let origin = left == noItem ? nil : StoreID(client: items[Int(left)].client, clock: items[Int(left)].lastClock)
        let rightOrigin = right == noItem ? nil : StoreID(client: items[Int(right)].client, clock: items[Int(right)].clock)
        return integrateNewItem(content, client: tr.ownClient, clock: clientState[Int(tr.ownClient)],
                                origin: origin, rightOrigin: rightOrigin, left: left, right: right,
                                parent: t, parentSub: parentSub, &tr)
    }
}
