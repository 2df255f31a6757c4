/// Resolving many relative positions between two edits (every collaborator's cursor
/// and selection on each presence update) without a list walk per position.
///
/// ``Store/visibleUnits(before:in:)`` walks from the item to the nearest known anchor:
/// on average a sixth of the type's items, tens of microseconds on a long document.
/// A ``PositionIndex`` holds, for every item of one list type, the visible units
/// before it, so a resolve is a struct lookup (by client and clock) plus an array read.
///
/// Building one is a single walk of the list, so it is made only for the second
/// resolve in the same type within one document state: a lone resolve after each
/// edit (one cursor) costs what it did, several cost one walk in all.
///
/// Valid for one state of the document only: every transaction (local, remote, undo,
/// rolled back) and its clean-up (which merges and collects items) bump
/// ``Doc/positionEpoch``, and an index from another epoch is never read. Never built or
/// read while a transaction or its clean-up runs, when items are half-changed.
struct PositionIndex {
    /// The document state this index describes.
    let epoch: UInt64
    /// Visible units before each item, by ``ItemRef``; -1 for items not in the type.
    let unitsBefore: [Int32]

    /// Walks type `t`'s list once. Nil when a count would not fit (a type past 2^31
    /// units keeps walking).
    init?(store: Store, type t: Int32, epoch: UInt64) {
        var table = [Int32](repeating: -1, count: store.items.count)
        var before = 0
        var ref = store.types[Int(t)].start
        let built = store.items.withUnsafeBufferPointer { items -> Bool in
            while ref != noItem {
                guard before <= Int(Int32.max) else { return false }
                table[Int(ref)] = Int32(before)
                before += items[Int(ref)].visibleLength
                ref = items[Int(ref)].right
            }
            return true
        }
        guard built else { return nil }
        self.epoch = epoch
        unitsBefore = table
    }

    /// The visible units before `ref`, nil when the index does not know it.
    func units(before ref: ItemRef) -> Int? {
        guard Int(ref) < unitsBefore.count else { return nil }
        let units = unitsBefore[Int(ref)]
        return units < 0 ? nil : Int(units)
    }
}

/// The position indexes of a document and the resolves that ask for them.
struct PositionIndexes {
    /// One index per list type, all of the same epoch.
    var byType: [Int32: PositionIndex] = [:]
    /// Resolves per type in the current epoch, to build an index on the second one.
    var resolves: [Int32: Int] = [:]
    var epoch: UInt64 = 0
}

extension Doc {
    /// The visible units before `ref` in list type `t`: from the type's position index
    /// when one exists or is worth building now (see ``PositionIndex``), else by a walk.
    func unitsBefore(_ ref: ItemRef, in t: Int32) -> Int {
        guard transactionDepth == 0, !isCleaningUp else { return store.visibleUnits(before: ref, in: t) }
        if positionIndexes.epoch != positionEpoch {
            positionIndexes = PositionIndexes(epoch: positionEpoch)
        }
        if let index = positionIndexes.byType[t], let units = index.units(before: ref) { return units }
        positionIndexes.resolves[t, default: 0] += 1
        guard positionIndexes.resolves[t, default: 0] >= 2, positionIndexes.byType[t] == nil,
            let index = PositionIndex(store: store, type: t, epoch: positionEpoch)
        else {
            return store.visibleUnits(before: ref, in: t)
        }
        positionIndexes.byType[t] = index
        return index.units(before: ref) ?? store.visibleUnits(before: ref, in: t)
    }
}
