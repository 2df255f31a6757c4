/// Applying remote updates (design/yjs-wire-format.md section 3.5).
extension Doc {
    /// Applies update v1 bytes from any replica, in any order, any number of times.
    ///
    /// Structs whose predecessors have not arrived are kept pending and integrated
    /// when they do; so are deletions of content not seen yet.
    /// - Throws: ``ErrorCode/malformedUpdate`` when the bytes are not a valid update, or
    ///   (with ``strictClientIDs``) name a client id above ``ID/maxSafeClient``; the
    ///   document is then exactly as it was.
    public func applyUpdate(_ update: [UInt8], origin: Origin? = nil) throws(AccordError) {
        // Most updates fit the compact form, which decodes and integrates without
        // building a value per struct; with something pending, the general path retries it.
        // The compact form never holds an id above maxSafeClient (it leaves those to the
        // general path), so only the general path needs the strict check.
        if pending == nil, pendingDeleteSet.isEmpty {
            // A small update decodes into the buffers the previous one used; a large one
            // (a whole document) into its own, so that the document does not keep them.
            let reuse = update.count <= CompactUpdate.reusedBufferLimit
            var compact = CompactUpdate()
            if reuse { swap(&compact, &compactBuffers) }
            defer { if reuse { swap(&compact, &compactBuffers) } }
            if compact.decode(update) {
                beginTransaction(origin: origin, local: false)
                defer { endTransaction() }
                transaction.local = false
                integrate(&compact)
                return
            }
        }
        let decoded = try DecodedUpdate.decode(update)
        try Self.validate(decoded)
        if strictClientIDs, let client = decoded.firstUnsafeClient {
            throw AccordError.malformed(
                "the update names client id \(client), above 2^53 - 1 (\(ID.maxSafeClient)), which JavaScript peers cannot read")
        }
        beginTransaction(origin: origin, local: false)
        defer { endTransaction() }
        transaction.local = false
        integrate(decoded)
    }

    /// Semantic checks that make integration infallible: references to the same
    /// client must point backwards, and clocks must fit.
    static func validate(_ update: DecodedUpdate) throws(AccordError) {
        for group in update.groups {
            for s in group.structs {
                guard case .item(let item) = s else { continue }
                let id = item.id
                if let o = item.origin, o.client == id.client, o.clock >= id.clock {
                    throw AccordError.malformed("item \(id) has an origin at or after itself")
                }
                if let ro = item.rightOrigin, ro.client == id.client, ro.clock >= id.clock {
                    throw AccordError.malformed("item \(id) has a right origin at or after itself")
                }
                if case .item(let p) = item.parent, p.client == id.client, p.clock >= id.clock {
                    throw AccordError.malformed("item \(id) has a parent at or after itself")
                }
                if item.origin == nil, item.rightOrigin == nil, item.parent == nil {
                    throw AccordError.malformed("item \(id) has neither origins nor parent")
                }
            }
        }
    }

    func integrate(_ update: DecodedUpdate) {
        let rest: PendingUpdates?
        if update.groups.count == 1 {
            rest = integrateSingleClient(update.groups[0])
        } else {
            var work = StructWork(update.groups)
            rest = integrateStructs(&work)
        }

        var retry = false
        if var pending {
            for (client, clock) in pending.missing where clock < store.state(of: client) {
                retry = true
                break
            }
            if let rest {
                for (client, clock) in rest.missing { pending.noteMissing(client, clock) }
                for (client, list) in rest.structs { pending.add(list, for: client) }
            }
            self.pending = pending
        } else {
            pending = rest
        }

        if !update.deleteSet.isEmpty || !pendingDeleteSet.isEmpty {
            var ds = update.deleteSet
            if !pendingDeleteSet.isEmpty { ds.formUnion(pendingDeleteSet) }
            pendingDeleteSet = applyDeleteSet(ds)
        }

        if retry, let waiting = pending {
            pending = nil
            integrate(DecodedUpdate(groups: waiting.structs.map { DecodedUpdate.ClientGroup(client: $0.key, structs: $0.value) }))
        }
    }

    /// The common case, one client's structs (every per-transaction update of a single
    /// writer): integrate in order while nothing is missing, without the bookkeeping of
    /// the general path, and hand it whatever is left when something is.
    private func integrateSingleClient(_ group: DecodedUpdate.ClientGroup) -> PendingUpdates? {
        let structs = group.structs
        var i = 0
        while i < structs.count {
            let s = structs[i]
            if case .skip = s {
                i += 1
                continue
            }
            let offset = store.state(of: s.id.client) - s.id.clock
            guard offset >= 0, missingDependency(s) == nil else { break }
            if offset < s.length { integrateStruct(s, offset: offset) }
            i += 1
        }
        guard i < structs.count else { return nil }
        var work = StructWork([DecodedUpdate.ClientGroup(client: group.client, structs: Array(structs[i...]))])
        return integrateStructs(&work)
    }

    /// Yjs's `integrateStructs`: clients from the highest ID down, following missing
    /// cross-client dependencies with a stack; what cannot be integrated is returned.
    func integrateStructs(_ work: inout StructWork) -> PendingUpdates? {
        var rest = PendingUpdates()
        var stack: [UpdateStruct] = []
        var open = Array(work.clients.indices)  // clients still to process, highest last

        func nextTarget(_ work: StructWork) -> Int? {
            while let i = open.last {
                if work.hasMore(i) { return i }
                open.removeLast()
            }
            return nil
        }
        func moveStackToRest(_ work: inout StructWork) {
            for s in stack {
                let c = s.id.client
                if let i = work.index(of: c), work.cursors[i] <= work.lists[i].count, !work.lists[i].isEmpty {
                    let from = max(0, work.cursors[i] - 1)
                    if from < work.lists[i].count { rest.add(Array(work.lists[i][from...]), for: c) }
                    work.lists[i] = []
                    work.cursors[i] = 0
                } else {
                    rest.add([s], for: c)
                }
                open.removeAll { work.clients[$0] == c }
            }
            stack.removeAll()
        }

        guard var target = nextTarget(work) else { return nil }
        var head: UpdateStruct? = work.take(target)
        while let s = head {
            if case .skip = s {
                // Nothing to integrate.
            } else {
                let localClock = store.state(of: s.id.client)
                let offset = localClock - s.id.clock
                if offset < 0 {
                    stack.append(s)
                    rest.noteMissing(s.id.client, s.id.clock - 1)
                    moveStackToRest(&work)
                } else if let missing = missingDependency(s) {
                    stack.append(s)
                    if let m = work.index(of: missing), work.hasMore(m) {
                        // Also wait for the dependency itself: if that client's structs here
                        // hit a gap further on, the stack goes pending on that gap and would
                        // otherwise not be retried when the dependency arrives.
                        rest.noteMissing(missing, store.state(of: missing))
                        head = work.take(m)
                        continue
                    }
                    rest.noteMissing(missing, store.state(of: missing))
                    moveStackToRest(&work)
                } else if offset < s.length {
                    integrateStruct(s, offset: offset)
                }
            }
            if let popped = stack.popLast() {
                head = popped
            } else if work.hasMore(target) {
                head = work.take(target)
            } else if let t = nextTarget(work) {
                target = t
                head = work.take(t)
            } else {
                head = nil
            }
        }
        return rest.isEmpty ? nil : rest
    }

    /// The client of an origin, right origin or parent from another client that this
    /// replica has not seen yet.
    private func missingDependency(_ s: UpdateStruct) -> ClientID? {
        guard case .item(let item) = s else { return nil }
        if let o = item.origin, o.client != item.id.client, o.clock >= store.state(of: o.client) { return o.client }
        if let ro = item.rightOrigin, ro.client != item.id.client, ro.clock >= store.state(of: ro.client) { return ro.client }
        if case .item(let p) = item.parent, p.client != item.id.client, p.clock >= store.state(of: p.client) { return p.client }
        return nil
    }

    /// Integrates one struct whose dependencies are all present, skipping the first
    /// `offset` units (already known).
    private func integrateStruct(_ s: UpdateStruct, offset: Int) {
        let sliced = s.slice(from: offset)
        let client = store.intern(client: sliced.id.client)
        let clock = UInt32(sliced.id.clock)
        let length = UInt32(sliced.length)
        guard case .item(let item) = sliced else {
            addGC(client: client, clock: clock, length: length)
            return
        }
        var left = noItem
        var right = noItem
        var originIndex = noClient
        var originClock: UInt32 = 0
        var rightOriginIndex = noClient
        var rightOriginClock: UInt32 = 0
        if let o = item.origin {
            originIndex = store.intern(client: o.client)
            originClock = UInt32(o.clock)
            left = store.findCleanEnd(client: originIndex, clock: originClock) ?? noItem
        }
        if let ro = item.rightOrigin {
            rightOriginIndex = store.intern(client: ro.client)
            rightOriginClock = UInt32(ro.clock)
            right = store.findCleanStart(client: rightOriginIndex, clock: rightOriginClock) ?? noItem
        }
        // Resolve the parent: a GC neighbour means the parent is gone.
        var parent: Int32 = -1
        var parentSub: Int32 = -1
        if neighbourWasCollected(left: left, right: right) {
            parent = -1
        } else if let p = item.parent {
            switch p {
            case .root(let name): parent = store.rootType(named: name)
            case .item(let pid):
                if let pc = store.clientIndex[pid.client], let holder = store.find(client: pc, clock: UInt32(pid.clock)),
                   store.items[Int(holder)].kind == .type {
                    parent = Int32(store.items[Int(holder)].a)
                }
            }
            if parent >= 0, let key = item.parentSub { parentSub = store.intern(key: key) }
        } else {
            (parent, parentSub) = parentOfNeighbour(left: left, right: right)
        }
        guard parent >= 0 else {
            addGC(client: client, clock: clock, length: length)
            return
        }
        store.integrateNewItem(
            item.content, client: client, clock: clock,
            origin: originIndex == noClient ? nil : StoreID(client: originIndex, clock: originClock),
            rightOrigin: rightOriginIndex == noClient ? nil : StoreID(client: rightOriginIndex, clock: rightOriginClock),
            left: left, right: right, parent: parent, parentSub: parentSub, &transaction)
    }

    func addGC(client: ClientIndex, clock: UInt32, length: UInt32) {
        let ref = store.allocate(Item(client: client, clock: clock, length: length, kind: .gc, deleted: true))
        store.addStruct(ref)
    }

    /// Deletes what it can of `ds`; returns the ranges beyond the local state.
    func applyDeleteSet(_ ds: DeleteSet) -> DeleteSet {
        var unapplied = DeleteSet()
        for (client, ranges) in ds.clients {
            let state = store.state(of: client)
            for range in ranges {
                let end = range.end
                guard range.clock < state else {
                    unapplied.add(client: client, clock: range.clock, length: range.length)
                    continue
                }
                if state < end { unapplied.add(client: client, clock: state, length: end - state) }
                // A client with a non-zero state is interned.
                guard let c = store.clientIndex[client] else { continue }
                deleteRange(client: c, from: UInt32(range.clock), to: UInt32(min(end, state)))
            }
        }
        unapplied.normalize()
        return unapplied
    }

    /// Deletes every not-yet-deleted unit of `client` in `from..<to`, splitting at the edges.
    func deleteRange(client: ClientIndex, from: UInt32, to end: UInt32) {
        guard var pos = store.findIndex(client: client, clock: from) else { return }
        let c = Int(client)
        var ref = store.clientStructs[c][pos]
        if !store.items[Int(ref)].deleted, store.items[Int(ref)].clock < from {
            store.split(ref, at: from - store.items[Int(ref)].clock, position: pos)
            pos += 1
        }
        while pos < store.clientStructs[c].count {
            ref = store.clientStructs[c][pos]
            pos += 1
            let item = store.items[Int(ref)]
            guard item.clock < end else { break }
            if !item.deleted {
                if end < item.clock + item.length {
                    store.split(ref, at: end - item.clock, position: pos - 1)
                }
                store.deleteItem(ref, &transaction)
                clearMarker(of: item.parent)
            }
        }
    }

    func clearMarker(of type: Int32) {
        if type >= 0 { store.types[Int(type)].clearMarker() }
    }

    /// Pending structs and deletes as one update, or nil when nothing is pending.
    func pendingAsUpdate() -> [UInt8]? {
        if pending == nil && pendingDeleteSet.isEmpty { return nil }
        return (pending ?? PendingUpdates()).encoded(deleteSet: pendingDeleteSet)
    }

    /// Whether some received structs or deletes still wait for a missing predecessor.
    public var hasPendingUpdates: Bool { pending != nil || !pendingDeleteSet.isEmpty }
}
