/// Structs that arrived before something they depend on, kept until it arrives.
struct PendingUpdates {
    /// Per client, non-overlapping structs in clock order.
    var structs: [ClientID: [UpdateStruct]] = [:]
    /// For each client, the clock whose arrival may unblock something (Yjs's `missing`).
    var missing: [ClientID: Int] = [:]

    var isEmpty: Bool { structs.values.allSatisfy(\.isEmpty) }

    mutating func noteMissing(_ client: ClientID, _ clock: Int) {
        if let m = missing[client], m <= clock { return }
        missing[client] = clock
    }

    /// Adds structs, dropping clocks already held and cutting overlaps.
    mutating func add(_ list: [UpdateStruct], for client: ClientID) {
        var all = (structs[client] ?? []) + list
        all.sort { $0.id.clock < $1.id.clock }
        var out: [UpdateStruct] = []
        out.reserveCapacity(all.count)
        var end = 0
        for s in all {
            if case .skip = s { continue }
            let sEnd = s.id.clock + s.length
            if sEnd <= end { continue }
            out.append(s.id.clock < end ? s.slice(from: end - s.id.clock) : s)
            end = sEnd
        }
        structs[client] = out
    }

    /// The pending structs as an update (gaps filled with Skip structs).
    func encoded(deleteSet: DeleteSet) -> [UInt8] {
        var groups: [DecodedUpdate.ClientGroup] = []
        for (client, list) in structs where !list.isEmpty {
            var out: [UpdateStruct] = []
            var next = list[0].id.clock
            for s in list {
                if s.id.clock > next { out.append(.skip(ID(client: client, clock: next), length: s.id.clock - next)) }
                out.append(s)
                next = s.id.clock + s.length
            }
            groups.append(DecodedUpdate.ClientGroup(client: client, structs: out))
        }
        groups.sort { $0.client > $1.client }
        return DecodedUpdate(groups: groups, deleteSet: deleteSet).encode()
    }
}
