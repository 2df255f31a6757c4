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

    /// Inserts local text between `left` and `right` of list type `t`: appended to `left`
    /// when the clean-up would merge it there anyway (Store+ExtendLocal.swift), else as a
    /// new item. Returns the item that now ends with the text.
    @discardableResult
    mutating func insertLocalText(units: [UInt16], type t: Int32, left: ItemRef, right: ItemRef,
                                  _ tr: inout TransactionState) -> ItemRef {
        let extend = canExtendOwnLastItem(type: t, left: left, right: right, ownClient: tr.ownClient)
        let offset = UInt32(text.count)
        text.append(contentsOf: units)
        return placeLocalText(at: offset, count: units.count, extend: extend, type: t, left: left, right: right, &tr)
    }

    /// Gives the `count` units just appended to ``text`` at `offset` to `left` (`extend`:
    /// what ``canExtendOwnLastItem(type:left:right:ownClient:)`` said before they were appended)
    /// or to a new item. Returns the item that now ends with the text.
    @discardableResult
    mutating func placeLocalText(at offset: UInt32, count: Int, extend: Bool, type t: Int32,
                                 left: ItemRef, right: ItemRef, _ tr: inout TransactionState) -> ItemRef {
        if extend {
            extendOwnLastItem(left, by: count, type: t, &tr)
            return left
        }
        let origin = left == noItem ? nil : StoreID(client: items[Int(left)].client, clock: items[Int(left)].lastClock)
        let rightOrigin = right == noItem ? nil : StoreID(client: items[Int(right)].client, clock: items[Int(right)].clock)
        return integrateNewItem(kind: .string, a: offset, b: 0, length: UInt32(count),
                                client: tr.ownClient, clock: clientState[Int(tr.ownClient)],
                                origin: origin, rightOrigin: rightOrigin, left: left, right: right,
                                parent: t, parentSub: -1, &tr)
    }

    /// Appends `string`'s UTF-16 units to ``text``; returns how many.
    mutating func appendUTF16(of string: String) -> Int {
        // One ASCII character, the usual keystroke: its one UTF-8 byte is its one unit.
        let utf8 = string.utf8
        if utf8.count == 1, let byte = utf8.withContiguousStorageIfAvailable({ $0[0] }), byte < 0x80 {
            text.append(UInt16(byte))
            return 1
        }
        // Other ASCII widens byte by byte from the string's own UTF-8 storage;
        // `String.UTF16View` iteration costs tens of instructions per unit.
        let ascii = string.utf8.withContiguousStorageIfAvailable { bytes -> Int in
            for byte in bytes where byte >= 0x80 { return -1 }
            for byte in bytes { text.append(UInt16(byte)) }
            return bytes.count
        }
        if let ascii, ascii >= 0 { return ascii }
        let start = text.count
        text.append(contentsOf: string.utf16)
        return text.count - start
    }

    /// A new map entry holding one plain value, after `left` (the key's current item):
    /// ``insertLocalItem(_:type:left:right:parentSub:_:)`` for `.any([value])`, with the
    /// value appended to the pool directly.
    mutating func insertLocalValue(_ value: AnyValue, type t: Int32, left: ItemRef, parentSub: Int32,
                                   _ tr: inout TransactionState) -> ItemRef {
        let origin = left == noItem ? nil : StoreID(client: items[Int(left)].client, clock: items[Int(left)].lastClock)
        let offset = UInt32(valuePool.count)
        valuePool.append(value)
        return integrateNewItem(kind: .any, a: offset, b: 0, length: 1, client: tr.ownClient,
                                clock: clientState[Int(tr.ownClient)], origin: origin, rightOrigin: nil,
                                left: left, right: noItem, parent: t, parentSub: parentSub, &tr)
    }

    /// Integrates a new local item holding `content` between `left` and `right`.
    /// Text in a list goes through ``insertLocalText(units:type:left:right:_:)``.
    @discardableResult
    mutating func insertLocalItem(_ content: StructContent, type t: Int32, left: ItemRef, right: ItemRef,
                                  parentSub: Int32 = -1, _ tr: inout TransactionState) -> ItemRef {
        if parentSub < 0, case .string(let units) = content {
            return insertLocalText(units: units, type: t, left: left, right: right, &tr)
        }
        let origin = left == noItem ? nil : StoreID(client: items[Int(left)].client, clock: items[Int(left)].lastClock)
        let rightOrigin = right == noItem ? nil : StoreID(client: items[Int(right)].client, clock: items[Int(right)].clock)
        return integrateNewItem(content, client: tr.ownClient, clock: clientState[Int(tr.ownClient)],
                                origin: origin, rightOrigin: rightOrigin, left: left, right: right,
                                parent: t, parentSub: parentSub, &tr)
    }
}
