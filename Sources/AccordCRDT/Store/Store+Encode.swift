/// Writing the store as update v1 (design/yjs-wire-format.md sections 2 and 3.3).
extension Store {
    /// The update v1 of a finished transaction, or nil when it changed nothing.
    ///
    /// `mutating` only so that the Doc calls it with in-place access to its store: a
    /// non-mutating call on a class's struct property copies the whole struct first.
    mutating func transactionUpdate(_ tr: TransactionState) -> [UInt8]? {
        // Usually one client wrote (this replica): write it without building the list.
        var changed = 0
        var only = (client: ClientIndex(0), clock: UInt32(0))
        for c in 0..<clientState.count where clientState[c] > tr.before(ClientIndex(c)) {
            changed += 1
            only = (ClientIndex(c), tr.before(ClientIndex(c)))
        }
        guard changed > 0 || !tr.deletes.isEmpty else { return nil }
        var w = ByteWriter()
        if changed <= 1 {
            w.writeVarUInt(changed)
            if changed == 1 { writeClientStructs(only.client, from: only.clock, to: &w) }
        } else {
            var from: [(ClientIndex, UInt32)] = []
            for c in 0..<clientState.count where clientState[c] > tr.before(ClientIndex(c)) {
                from.append((ClientIndex(c), tr.before(ClientIndex(c))))
            }
            writeStructs(from: from, to: &w)
        }
        tr.deletes.write(to: &w, clientIDs: clientIDs)
        return w.takeBytes()
    }

    /// Writes, for each client in `from`, its structs from that clock on (the first one
    /// cut at the offset), clients in descending ID order as Yjs does.
    func writeStructs(from unsorted: [(ClientIndex, UInt32)], to w: inout ByteWriter) {
        var from = unsorted
        if from.count > 1 {
            let ids = clientIDs
            from.sort { ids[Int($0.0)] > ids[Int($1.0)] }
        }
        w.writeVarUInt(from.count)
        for (c, clock) in from { writeClientStructs(c, from: clock, to: &w) }
    }

    /// One client group: client `c`'s structs from `clock` on, the first one cut there.
    func writeClientStructs(_ c: ClientIndex, from clock: UInt32, to w: inout ByteWriter) {
        let structs = clientStructs[Int(c)]
        guard let startPos = findIndex(client: c, clock: clock) else { return }
        w.writeVarUInt(structs.count - startPos)
        w.writeVarUInt(clientIDs[Int(c)])
        w.writeVarUInt(UInt64(clock))
        let first = items[Int(structs[startPos])]
        writeStruct(first, offset: clock - first.clock, to: &w)
        for pos in (startPos + 1)..<structs.count {
            writeStruct(items[Int(structs[pos])], offset: 0, to: &w)
        }
    }

    /// For clients whose state exceeds `sv`: the clock to start writing from.
    func missingClocks(since sv: StateVector) -> [(ClientIndex, UInt32)] {
        var from: [(ClientIndex, UInt32)] = []
        for (i, client) in clientIDs.enumerated() {
            let known = UInt32(clamping: sv[client])
            if clientState[i] > known { from.append((ClientIndex(i), known)) }
        }
        return from
    }

    func writeStruct(_ item: Item, offset: UInt32, to w: inout ByteWriter) {
        if item.kind == .gc {
            w.writeUInt8(0)
            w.writeVarUInt(UInt64(item.length - offset))
            return
        }
        let ref = item.kind.rawValue
        let hasOrigin = offset > 0 || item.hasOrigin
        var info = ref
        if hasOrigin { info |= 0x80 }
        if item.hasRightOrigin { info |= 0x40 }
        if item.parentSub >= 0 { info |= 0x20 }
        w.writeUInt8(info)
        if offset > 0 {
            w.writeVarUInt(clientIDs[Int(item.client)])
            w.writeVarUInt(UInt64(item.clock + offset - 1))
        } else if item.hasOrigin {
            w.writeVarUInt(clientIDs[Int(item.originClient)])
            w.writeVarUInt(UInt64(item.originClock))
        }
        if item.hasRightOrigin {
            w.writeVarUInt(clientIDs[Int(item.rightOriginClient)])
            w.writeVarUInt(UInt64(item.rightOriginClock))
        }
        if !hasOrigin && !item.hasRightOrigin {
            // Only the fields needed: a whole `TypeRecord` copied per struct retained and
            // released its map and name (a records batch writes ten such structs a record).
            let holderRef = types[Int(item.parent)].item
            if holderRef == noItem {
                w.writeVarUInt(1)
                w.writeVarString(types[Int(item.parent)].rootName ?? "")
            } else {
                let holder = items[Int(holderRef)]
                w.writeVarUInt(0)
                w.writeVarUInt(clientIDs[Int(holder.client)])
                w.writeVarUInt(UInt64(holder.clock))
            }
            if item.parentSub >= 0 { w.writeVarString(keys[Int(item.parentSub)]) }
        }
        let o = Int(offset)
        switch item.kind {
        case .deleted: w.writeVarUInt(UInt64(item.length - offset))
        case .string:
            w.writeVarString(utf16: text[(Int(item.a) + o)..<Int(item.a + item.length)])
        case .any:
            // By index into the pool: a slice of it per struct retained the pool's buffer.
            let values = (Int(item.a) + o)..<Int(item.a + item.length)
            w.writeVarUInt(values.count)
            for position in values { valuePool[position].write(to: &w) }
        case .json:
            let values = self.values(of: item).dropFirst(o)
            w.writeVarUInt(values.count)
            for v in values { w.writeVarString(v.jsonText) }
        case .type:
            StructContent.type(types[Int(item.a)].kind ?? .map).write(to: &w)
        case .binary, .embed, .format, .doc:
            payloads[Int(item.a)].write(to: &w)
        case .gc:
            break
        }
    }

    /// Every deleted range in the store (GC structs included), merged per client.
    var deleteSet: DeleteSet {
        var ds = DeleteSet()
        for (c, structs) in clientStructs.enumerated() {
            var ranges: [DeleteSet.Range] = []
            for ref in structs {
                let item = items[Int(ref)]
                guard item.deleted else { continue }
                if let last = ranges.last, last.end == Int(item.clock) {
                    ranges[ranges.count - 1].length += Int(item.length)
                } else {
                    ranges.append(DeleteSet.Range(clock: Int(item.clock), length: Int(item.length)))
                }
            }
            if !ranges.isEmpty { ds.clients[clientIDs[c]] = ranges }
        }
        return ds
    }
}
