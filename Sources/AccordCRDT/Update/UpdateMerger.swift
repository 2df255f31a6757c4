/// The algorithms behind ``mergeUpdates(_:)``, ``diffUpdate(_:stateVector:)`` and
/// ``encodeStateVectorFromUpdate(_:)``, on decoded updates.
///
/// They follow Yjs 13.6 `src/utils/updates.js` (mergeUpdatesV2, diffUpdateV2,
/// encodeStateVectorFromUpdateV2) step for step, so that the bytes match Yjs's, including
/// for unusual inputs (groups out of client order, overlapping updates).
enum UpdateMerger {
    /// All structs of an update in wire order (groups concatenated), read one at a time.
    struct Reader {
        let structs: [UpdateStruct]
        private(set) var position = 0

        init(_ update: DecodedUpdate, skippingSkips: Bool) {
            var all: [UpdateStruct] = []
            for g in update.groups {
                if skippingSkips {
                    all.append(contentsOf: g.structs.lazy.filter { !$0.isSkip })
                } else {
                    all.append(contentsOf: g.structs)
                }
            }
            structs = all
        }

        var current: UpdateStruct? { position < structs.count ? structs[position] : nil }

        @discardableResult
        mutating func next() -> UpdateStruct? {
            if position < structs.count { position += 1 }
            return current
        }
    }

    /// Yjs's reader order: higher client first, then lower clock, then non-Skip first.
    /// A strict weak order; ties keep their previous relative order (Yjs's sort is stable).
    static func sortsBefore(_ a: UpdateStruct, _ b: UpdateStruct) -> Bool {
        if a.id.client != b.id.client { return a.id.client > b.id.client }
        if a.id.clock != b.id.clock { return a.id.clock < b.id.clock }
        return !a.isSkip && b.isSkip
    }

    /// GC joins GC and Skip joins Skip (Yjs's `mergeWith` for those classes); items read
    /// from an update never join (Yjs's `Item.mergeWith` needs linked neighbours).
    static func joined(_ left: UpdateStruct, _ right: UpdateStruct) -> UpdateStruct? {
        switch (left, right) {
        case (.gc(let id, let n), .gc(_, let m)): return .gc(id, length: n + m)
        case (.skip(let id, let n), .skip(_, let m)): return .skip(id, length: n + m)
        default: return nil
        }
    }

    static func merge(_ updates: [DecodedUpdate]) -> [UInt8] {
        var readers = updates.map { Reader($0, skippingSkips: true) }
        // Indices of readers that still have structs, in Yjs's sorted order. Only the first
        // reader ever advances, so after each round only it has to be put back in place.
        var active = readers.indices.filter { readers[$0].current != nil }
        active = active.enumerated().sorted { a, b in
            let x = readers[a.element].current!, y = readers[b.element].current!
            if sortsBefore(x, y) { return true }
            if sortsBefore(y, x) { return false }
            return a.offset < b.offset
        }.map(\.element)

        var writer = LazyStructWriter()
        var currWrite: UpdateStruct? = nil

        func reposition() {
            let r = active.removeFirst()
            guard let moved = readers[r].current else { return }
            // A stable sort keeps the moved reader ahead of every reader it ties with.
            var lo = 0, hi = active.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if sortsBefore(readers[active[mid]].current!, moved) { lo = mid + 1 } else { hi = mid }
            }
            active.insert(r, at: lo)
        }

        while let d = active.first {
            let firstClient = readers[d].current!.id.client
            if var write = currWrite {
                var curr = readers[d].current
                var iterated = false
                // Drop what was already written (higher clients come first).
                while let c = curr, c.end <= write.end, c.id.client >= write.id.client {
                    curr = readers[d].next()
                    iterated = true
                }
                guard var c = curr, c.id.client == firstClient, !(iterated && c.id.clock > write.end) else {
                    // Another reader may hold the clocks in between: choose again.
                    reposition()
                    continue
                }
                if firstClient != write.id.client {
                    writer.write(write)
                    currWrite = c
                    readers[d].next()
                } else if write.end < c.id.clock {
                    // A gap: cover it with a Skip.
                    if case .skip(let id, _) = write {
                        currWrite = .skip(id, length: c.end - id.clock)
                    } else {
                        writer.write(write)
                        currWrite = .skip(ID(client: firstClient, clock: write.end), length: c.id.clock - write.end)
                    }
                } else {
                    let overlap = write.end - c.id.clock
                    if overlap > 0 {
                        if case .skip(let id, let n) = write {
                            // Prefer cutting the Skip: the other struct carries content.
                            write = .skip(id, length: n - overlap)
                            currWrite = write
                        } else {
                            c = c.slice(from: overlap)
                        }
                    }
                    if let j = joined(write, c) {
                        currWrite = j
                    } else {
                        writer.write(write)
                        currWrite = c
                        readers[d].next()
                    }
                }
            } else {
                currWrite = readers[d].current
                readers[d].next()
            }
            // Copy the reader's following structs while they continue the same client.
            while let next = readers[d].current, let write = currWrite, next.id.client == firstClient,
                  next.id.clock == write.end, !next.isSkip {
                writer.write(write)
                currWrite = next
                readers[d].next()
            }
            reposition()
        }
        if let write = currWrite { writer.write(write) }

        var w = ByteWriter()
        writer.finish(into: &w)
        var ds = DeleteSet()
        for u in updates {
            for (client, ranges) in u.deleteSet.clients { ds.clients[client, default: []].append(contentsOf: ranges) }
        }
        ds.normalize()
        ds.write(to: &w)
        return w.takeBytes()
    }

    static func diff(_ update: DecodedUpdate, against sv: StateVector) -> [UInt8] {
        var reader = Reader(update, skippingSkips: false)
        var writer = LazyStructWriter()
        while let curr = reader.current {
            let client = curr.id.client
            let svClock = sv[client]
            if curr.isSkip {
                // A group never starts with a Skip.
                reader.next()
                continue
            }
            if curr.end > svClock {
                writer.write(curr.slice(from: max(svClock - curr.id.clock, 0)))
                reader.next()
                while let s = reader.current, s.id.client == client {
                    writer.write(s)
                    reader.next()
                }
            } else {
                while let s = reader.current, s.id.client == client, s.end <= svClock { reader.next() }
            }
        }
        var w = ByteWriter()
        writer.finish(into: &w)
        // The delete set as read: clients descending, each client's ranges in wire order
        // (Yjs neither sorts nor merges them here).
        update.deleteSet.write(to: &w)
        return w.takeBytes()
    }

    static func stateVector(of update: DecodedUpdate) -> [UInt8] {
        var entries: [(client: ClientID, clock: Int)] = []
        var currClient: ClientID? = nil
        var currClock = 0
        var stopped = false
        for g in update.groups {
            for s in g.structs {
                if s.id.client != currClient {
                    if let c = currClient, currClock != 0 { entries.append((c, currClock)) }
                    currClient = s.id.client
                    currClock = 0
                    stopped = false
                }
                if s.isSkip || s.id.clock != currClock { stopped = true }
                if !stopped { currClock = s.end }
            }
        }
        if let c = currClient, currClock != 0 { entries.append((c, currClock)) }
        var w = ByteWriter()
        w.writeVarUInt(entries.count)
        for e in entries {
            w.writeVarUInt(e.client)
            w.writeVarUInt(e.clock)
        }
        return w.takeBytes()
    }
}
