/// Finding client ids above ``ID/maxSafeClient`` (2^53 − 1), which JavaScript Yjs cannot
/// read exactly. Used by ``Doc/strictClientIDs`` and by servers checking state vectors.
extension DecodedUpdate {
    /// The first id above ``ID/maxSafeClient`` the update names: a struct's writer, an
    /// origin, a right origin, a parent item, or a delete-set entry. Nil when none does.
    public var firstUnsafeClient: ClientID? {
        for group in groups {
            if group.client > ID.maxSafeClient { return group.client }
            for s in group.structs {
                guard case .item(let item) = s else { continue }
                if let o = item.origin, o.client > ID.maxSafeClient { return o.client }
                if let ro = item.rightOrigin, ro.client > ID.maxSafeClient { return ro.client }
                if case .item(let p)? = item.parent, p.client > ID.maxSafeClient { return p.client }
            }
        }
        return deleteSet.clients.keys.first { $0 > ID.maxSafeClient }
    }
}

extension StateVector {
    /// The first client above ``ID/maxSafeClient`` the state vector names, nil when none.
    public var firstUnsafeClient: ClientID? {
        clocks.keys.first { $0 > ID.maxSafeClient }
    }
}
