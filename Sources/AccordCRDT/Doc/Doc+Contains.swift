extension Doc {
    /// Whether applying `update` would change nothing here: every struct it carries lies
    /// below the state vector (integrated, or collected since), and every range it
    /// deletes is deleted already.
    ///
    /// A sync step 2 carries the sender's whole delete set, so a peer with nothing new
    /// still sends a non-empty one; this tells such an answer apart from a write. A
    /// server uses it to take a read-only connection's step 2 without refusing it, as
    /// Hocuspocus does. Structs still pending here count as new (they are not below the
    /// state vector), so the answer errs towards "changes something".
    ///
    /// Costs a pass over the struct store (to collect its deletions) and one over the
    /// update.
    /// - Throws: `MALFORMED_UPDATE` if `update` does not decode.
    public func containsUpdate(_ update: [UInt8]) throws(AccordError) -> Bool {
        let decoded = try DecodedUpdate.decode(update)
        let known = store.stateVector
        for group in decoded.groups {
            for item in group.structs {
                if case .skip = item { continue }
                if item.id.clock + item.length > known[group.client] { return false }
            }
        }
        guard !decoded.deleteSet.isEmpty else { return true }
        let deleted = store.deleteSet
        for (client, ranges) in decoded.deleteSet.clients where !ranges.isEmpty {
            guard let covering = deleted.clients[client],
                Self.covers(covering, DeleteSet.merged(ranges))
            else { return false }
        }
        return true
    }

    /// Whether the sorted, disjoint `ranges` cover every clock of the sorted, merged
    /// `wanted`, walking both lists once.
    private static func covers(_ ranges: [DeleteSet.Range], _ wanted: [DeleteSet.Range]) -> Bool {
        var index = 0
        for range in wanted {
            var clock = range.clock
            while clock < range.end {
                while index < ranges.count, ranges[index].end <= clock { index += 1 }
                guard index < ranges.count, ranges[index].clock <= clock else { return false }
                clock = ranges[index].end
            }
        }
        return true
    }
}
