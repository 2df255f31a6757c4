/// Bookkeeping of the transaction in progress.
struct TransactionState {
    var origin: Origin?
    /// True for edits made through this document's API, false for applied updates.
    var local: Bool
    /// Each client's state when the transaction began (by client index).
    var beforeState: [UInt32]
    var deleteSet = DeleteSet()
    /// Types changed in this transaction, with the keys changed (-1 = the list part).
    var changed: [Int32: Set<Int32>] = [:]
    /// Items whose right neighbour may now be mergeable into them.
    var mergeStructs: [ItemRef] = []
    /// Set when a remote transaction touched a text that has formatting.
    var needFormattingCleanup = false

    init(origin: Origin?, local: Bool, beforeState: [UInt32]) {
        self.origin = origin
        self.local = local
        self.beforeState = beforeState
    }

    func before(_ client: ClientIndex) -> UInt32 {
        Int(client) < beforeState.count ? beforeState[Int(client)] : 0
    }
}
