/// Creating items for local edits.
extension Store {
    /// Integrates a new local item holding `content` between `left` and `right`.
    @discardableResult
    mutating func insertLocalItem(_ content: StructContent, type t: Int32, left: ItemRef, right: ItemRef,
                         parentSub: Int32 = -1, _ tr: inout TransactionState) -> ItemRef {
        let client = tr.ownClient
        let (kind, a, b) = store(content)
        var item = Item(client: client, clock: clientState[Int(client)], length: UInt32(content.length), kind: kind)
        if left != noItem {
            let l = items[Int(left)]
            item.originClient = l.client
            item.originClock = l.lastClock
        }
        if right != noItem {
            let r = items[Int(right)]
            item.rightOriginClient = r.client
            item.rightOriginClock = r.clock
        }
        item.left = left
        item.right = right
        item.parent = t
        item.parentSub = parentSub
        item.a = a
        item.b = b
        let ref = allocate(item)
        integrate(ref, &tr)
        return ref
    }

}
