/// Applying a ``CompactUpdate``: the same steps as the general path (``Doc/integrate(_:)``),
/// reading flat entries instead of ``UpdateStruct`` values. Used only while nothing is
/// pending, so there is nothing to retry afterwards.
extension Doc {
    func integrate(_ update: inout CompactUpdate) {
        // Loading into a fresh document, which is most of a load's work.
        let adoptText = store.text.isEmpty && update.unitCount > 0
        if adoptText {
            update.units.removeLast(update.units.count - update.unitCount)
            // A store without text takes the update's text buffer as its own, rather than
            // copying it item by item: an item's units then stay where the parse put them,
            // at its entry's `textStart`. Units of entries not integrated stay unused,
            // bounded by this one update's size.
            swap(&store.text, &update.units)
        }
        if store.items.isEmpty {
            // The arena's final size is bounded: one item per entry, plus at most two
            // splits per entry (at its origins) and per delete range (at its ends). One
            // allocation instead of repeated growth, each copying every item; pages of
            // it that are never used are never touched.
            store.items.reserveCapacity(3 * update.entries.count + 2 * update.deletes.count)
        }
        pending = integrateEntries(update, adoptedText: adoptText)
        if !update.deletes.isEmpty { pendingDeleteSet = applyDeletes(update.deletes) }
    }

    /// Integrates entries in clock order while nothing is missing (as
    /// `integrateSingleClient` does) and hands the rest to the general path.
    /// `adoptedText`: the update's units are ``Store/text`` (not `update.units`).
    private func integrateEntries(_ update: CompactUpdate, adoptedText: Bool) -> PendingUpdates? {
        let entries = update.entries
        var i = 0
        while i < entries.count {
            let e = entries[i]
            if e.kind == 10 {
                i += 1
                continue
            }
            let offset = store.state(of: update.client) - Int(e.clock)
            guard offset >= 0, !isMissingDependency(e, of: update.client) else { break }
            if offset < Int(e.length) { integrateEntry(e, of: update, offset: UInt32(offset), adoptedText: adoptedText) }
            i += 1
        }
        guard i < entries.count else { return nil }
        let rest = entries[i...].map { update.updateStruct($0, units: adoptedText ? store.text : update.units) }
        var work = StructWork([DecodedUpdate.ClientGroup(client: update.client, structs: rest)])
        return integrateStructs(&work)
    }

    private func isMissingDependency(_ e: CompactUpdate.Entry, of client: ClientID) -> Bool {
        if e.hasOrigin, e.originClient != client, Int(e.originClock) >= store.state(of: e.originClient) { return true }
        if e.hasRightOrigin, e.rightOriginClient != client, Int(e.rightOriginClock) >= store.state(of: e.rightOriginClient) {
            return true
        }
        return false
    }

    /// `integrateStruct` for an entry, skipping its first `offset` units (already known).
    private func integrateEntry(_ e: CompactUpdate.Entry, of update: CompactUpdate, offset: UInt32, adoptedText: Bool) {
        let client = store.intern(client: update.client)
        let clock = e.clock + offset
        let length = e.length - offset
        guard e.kind != 0 else {
            addGC(client: client, clock: clock, length: length)
            return
        }
        var left = noItem
        var right = noItem
        var origin: StoreID? = nil
        var rightOrigin: StoreID? = nil
        if offset > 0 {
            // A slice's origin is the unit before the cut.
            origin = StoreID(client: client, clock: clock - 1)
        } else if e.hasOrigin {
            // Origins mostly name the writer itself: its index is known.
            origin = StoreID(client: e.originClient == update.client ? client : store.intern(client: e.originClient),
                             clock: e.originClock)
        }
        if let o = origin { left = store.findCleanEnd(client: o.client, clock: o.clock) ?? noItem }
        if e.hasRightOrigin {
            let ro = StoreID(client: e.rightOriginClient == update.client ? client : store.intern(client: e.rightOriginClient),
                             clock: e.rightOriginClock)
            rightOrigin = ro
            right = store.findCleanStart(client: ro.client, clock: ro.clock) ?? noItem
        }
        var parent: Int32 = -1
        var parentSub: Int32 = -1
        if neighbourWasCollected(left: left, right: right) {
            parent = -1
        } else if e.rootName >= 0 {
            parent = store.rootType(named: update.rootNames[Int(e.rootName)])
        } else {
            (parent, parentSub) = parentOfNeighbour(left: left, right: right)
        }
        guard parent >= 0 else {
            addGC(client: client, clock: clock, length: length)
            return
        }
        let kind: ContentKind
        var a: UInt32 = 0
        if e.kind == 1 {
            kind = .deleted
        } else {
            kind = .string
            let start = Int(e.textStart + offset)
            if adoptedText {
                a = UInt32(start)
            } else {
                a = UInt32(store.text.count)
                store.text.append(contentsOf: update.units[start..<Int(e.textStart + e.length)])
            }
            // Cutting a surrogate pair: the dangling half becomes U+FFFD (StructContent.slice).
            // (The units before `start` are the entry's own, which no item uses.)
            if offset > 0 {
                let cut = adoptedText ? (store.text[start - 1], store.text[start]) : (update.units[start - 1], update.units[start])
                if UTF16.isLeadSurrogate(cut.0), UTF16.isTrailSurrogate(cut.1) { store.text[Int(a)] = 0xFFFD }
            }
        }
        store.integrateNewItem(kind: kind, a: a, b: 0, length: length, client: client, clock: clock,
                               origin: origin, rightOrigin: rightOrigin, left: left, right: right,
                               parent: parent, parentSub: parentSub, &transaction)
    }

    /// `applyDeleteSet` over wire-order ranges; returns the ranges beyond the local state.
    private func applyDeletes(_ ranges: ContiguousArray<CompactUpdate.DeleteRange>) -> DeleteSet {
        var unapplied = DeleteSet()
        for range in ranges {
            let state = store.state(of: range.client)
            let start = Int(range.clock)
            let end = start + Int(range.length)
            guard start < state else {
                unapplied.add(client: range.client, clock: start, length: Int(range.length))
                continue
            }
            if state < end { unapplied.add(client: range.client, clock: state, length: end - state) }
            // Known (its state is above zero): intern finds it, through its cache of the
            // last client, without hashing.
            deleteRange(client: store.intern(client: range.client), from: range.clock, to: UInt32(min(end, state)))
        }
        if !unapplied.clients.isEmpty { unapplied.normalize() }
        return unapplied
    }
}
