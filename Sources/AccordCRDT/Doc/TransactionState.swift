/// Bookkeeping of the transaction in progress.
///
/// Its buffers are recycled from one transaction to the next (see ``Doc``), so a
/// keystroke-sized transaction allocates nothing here.
struct TransactionState {
    var origin: Origin? = nil
    /// This replica's interned client: new local items get its next clock.
    var ownClient: ClientIndex = 0
    /// True for edits made through this document's API, false for applied updates.
    var local = true
    /// Each client's state when the transaction began (by client index).
    var beforeState: [UInt32] = []
    /// The sizes of the store's content buffers when the transaction began, to which a
    /// failed transaction truncates them (Doc+Rollback.swift).
    var beforeTextCount = 0
    var beforeValueCount = 0
    var beforePayloadCount = 0
    /// What this transaction deleted.
    var deletes = LocalDeleteSet()
    /// The first type changed in this transaction, with the key changed (-1 = the list
    /// part), then the others, duplicates possible (read them through ``changedKeys``
    /// and ``changedAnyType(where:)``). The first is kept inline: nearly every
    /// transaction changes one type once, and even a reused list's append checks that
    /// its buffer is uniquely referenced.
    private var firstChanged: ChangedType? = nil
    private var moreChanged = ReusableList<ChangedType>()
    /// Items whose right neighbour may now be mergeable into them.
    var mergeStructs = ReusableList<ItemRef>()
    /// Set when a remote transaction touched a text that has formatting.
    var needFormattingCleanup = false
    /// Set when local text was appended to an existing item rather than made an item of
    /// its own (``Store/extendOwnLastItem(_:by:type:_:)``).
    var extendedOwnItem = false
    /// Text a local delete joined to a deleted neighbour rather than splitting it off
    /// (``Store/absorbDeletedTail(of:from:type:_:)``), for events to split it off again.
    var absorbedTails = ReusableList<AbsorbedTail>()

    /// Units `clock..<clock+length` of `client`, text at `textOffset` in ``Store/text``.
    struct AbsorbedTail {
        var client: ClientIndex
        var clock: UInt32
        var length: UInt32
        var textOffset: UInt32
    }

    struct ChangedType: Hashable {
        var type: Int32
        var key: Int32
    }

    /// Prepares a used state for a new transaction, keeping its buffers' capacity. The
    /// caller fills ``beforeState``.
    mutating func reset(origin: Origin?, local: Bool) {
        // Assigning nil over nil still retains and releases the string's storage.
        if origin != nil || self.origin != nil { self.origin = origin }
        self.local = local
        // Count-only clears (ReusableList): the generic removeAll path costs more than
        // a keystroke's whole integration.
        deletes.ranges.removeAll()
        firstChanged = nil
        moreChanged.removeAll()
        mergeStructs.removeAll()
        needFormattingCleanup = false
        extendedOwnItem = false
        absorbedTails.removeAll()
    }

    /// Whether every unit this transaction deleted was joined to deleted text that was
    /// already collected and merged (Store+AbsorbDeleted.swift), so collecting and
    /// merging the delete set would find nothing to do. Call once ``deletes`` is
    /// normalized (its ranges are then disjoint, as the joined tails are).
    var deletesWereAllAbsorbed: Bool {
        guard !absorbedTails.isEmpty else { return false }
        var deleted: UInt32 = 0
        for range in deletes.ranges { deleted += range.length }
        var absorbed: UInt32 = 0
        for tail in absorbedTails { absorbed += tail.length }
        return deleted == absorbed
    }

    func before(_ client: ClientIndex) -> UInt32 {
        Int(client) < beforeState.count ? beforeState[Int(client)] : 0
    }

    mutating func noteChanged(type: Int32, key: Int32) {
        let entry = ChangedType(type: type, key: key)
        guard let first = firstChanged else {
            firstChanged = entry
            return
        }
        let last = moreChanged.isEmpty ? first : moreChanged[moreChanged.count - 1]
        if last != entry { moreChanged.append(entry) }
    }

    /// Whether a type this transaction changed satisfies `predicate` (no allocation: it
    /// runs for every remote transaction).
    func changedAnyType(where predicate: (Int32) -> Bool) -> Bool {
        guard let firstChanged else { return false }
        return predicate(firstChanged.type) || moreChanged.contains { predicate($0.type) }
    }

    /// The changed types with their keys, deduplicated.
    var changedKeys: [Int32: Set<Int32>] {
        var out: [Int32: Set<Int32>] = [:]
        guard let firstChanged else { return out }
        out[firstChanged.type, default: []].insert(firstChanged.key)
        for c in moreChanged { out[c.type, default: []].insert(c.key) }
        return out
    }
}

/// Deleted ranges recorded by a transaction, by interned client.
struct LocalDeleteSet {
    struct Range: Equatable {
        var client: ClientIndex
        var clock: UInt32
        var length: UInt32
        var end: UInt32 { clock + length }
    }

    var ranges = ReusableList<Range>()
    var isEmpty: Bool { ranges.isEmpty }

    mutating func add(client: ClientIndex, clock: UInt32, length: UInt32) {
        if let last = ranges.last, last.client == client, last.end == clock {
            ranges[ranges.count - 1].length += length
        } else {
            ranges.append(Range(client: client, clock: clock, length: length))
        }
    }

    /// Sorts by client ID descending (the order Yjs writes), then clock, and joins
    /// overlapping or touching ranges.
    mutating func normalize(clientIDs: [ClientID]) {
        guard ranges.count > 1 else { return }
        ranges.sort { a, b in
            a.client != b.client ? clientIDs[Int(a.client)] > clientIDs[Int(b.client)] : a.clock < b.clock
        }
        var out = 0
        for i in 1..<ranges.count {
            let r = ranges[i]
            if ranges[out].client == r.client, r.clock <= ranges[out].end {
                ranges[out].length = max(ranges[out].end, r.end) - ranges[out].clock
            } else {
                out += 1
                ranges[out] = r
            }
        }
        ranges.truncate(to: out + 1)
    }

    func contains(client: ClientIndex, clock: UInt32) -> Bool {
        ranges.contains { $0.client == client && $0.clock <= clock && clock < $0.end }
    }

    /// Writes a normalized set as a v1 delete set.
    func write(to w: inout ByteWriter, clientIDs: [ClientID]) {
        var clients = 0
        var previous: ClientIndex? = nil
        for r in ranges where r.client != previous {
            clients += 1
            previous = r.client
        }
        w.writeVarUInt(clients)
        var i = 0
        while i < ranges.count {
            let client = ranges[i].client
            var j = i
            while j < ranges.count, ranges[j].client == client { j += 1 }
            w.writeVarUInt(clientIDs[Int(client)])
            w.writeVarUInt(j - i)
            for r in ranges[i..<j] {
                w.writeVarUInt(UInt64(r.clock))
                w.writeVarUInt(UInt64(r.length))
            }
            i = j
        }
    }
}
