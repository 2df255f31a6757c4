/// How an incoming item finds its parent from its neighbours, shared by the general
/// and the compact apply paths. (Methods on `Doc`, the class: a non-mutating method on
/// the `Store` struct would copy it.)
extension Doc {
    /// A garbage-collected neighbour means the parent is gone: the item becomes GC too.
    @inline(__always)
    func neighbourWasCollected(left: Int32, right: Int32) -> Bool {
        (left != noItem && store.items[Int(left)].kind == .gc)
            || (right != noItem && store.items[Int(right)].kind == .gc)
    }

    /// An item whose update names no parent takes its left neighbour's parent and key,
    /// else its right neighbour's; (-1, -1) when it has neither.
    @inline(__always)
    func parentOfNeighbour(left: Int32, right: Int32) -> (parent: Int32, parentSub: Int32) {
        if left != noItem { return (store.items[Int(left)].parent, store.items[Int(left)].parentSub) }
        if right != noItem { return (store.items[Int(right)].parent, store.items[Int(right)].parentSub) }
        return (-1, -1)
    }
}
