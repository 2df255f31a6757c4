/// Yjs's formatting clean-up after remote changes, run as a transaction of its own.
extension Doc {
    /// After a remote transaction touched formatted text: drop duplicate Format items
    /// (Yjs `cleanupYTextAfterTransaction`). Runs as a new local transaction.
    func cleanupFormattingAfterRemote(_ finished: TransactionState) {
        var needFullCleanup = Set<Int32>()
        for c in 0..<store.clientState.count {
            let before = finished.before(ClientIndex(c))
            let after = store.clientState[c]
            guard after > before, var pos = store.findIndex(client: ClientIndex(c), clock: before) else { continue }
            let structs = store.clientStructs[c]
            while pos < structs.count {
                let item = store.items[Int(structs[pos])]
                if !item.deleted, item.kind == .format { needFullCleanup.insert(item.parent) }
                pos += 1
            }
        }
        beginTransaction(origin: nil, local: true)
        defer { endTransaction() }
        for range in finished.deletes.ranges {
            let c = range.client
            do {
                guard var pos = store.findIndex(client: c, clock: range.clock) else { continue }
                while pos < store.clientStructs[Int(c)].count {
                    let ref = store.clientStructs[Int(c)][pos]
                    let item = store.items[Int(ref)]
                    if item.clock >= range.end { break }
                    pos += 1
                    guard item.kind != .gc, item.parent >= 0, store.types[Int(item.parent)].hasFormatting,
                          !needFullCleanup.contains(item.parent) else { continue }
                    if item.kind == .format {
                        needFullCleanup.insert(item.parent)
                    } else {
                        store.cleanupContextlessGap(around: ref, &transaction)
                    }
                }
            }
        }
        for t in needFullCleanup.sorted() { store.cleanupTextFormatting(type: t, &transaction) }
    }

}
