// Operations on update v1 bytes that need no document: Yjs's `mergeUpdates`,
// `diffUpdate` and `encodeStateVectorFromUpdate` (design/yjs-wire-format.md 3.3, 3.4).
//
// Every input is untrusted. Bytes that are not a well-formed update (or state vector)
// throw ``AccordError`` with code ``ErrorCode/malformedUpdate``; nothing here traps,
// and every allocation is bounded by the size of the input.
//
// Output follows Yjs 13.6, which re-encodes every struct it reads:
// * numbers inside "any" values get Yjs's tag (an integer read as float32 is written as
//   a varInt), as ``AnyValue`` always does;
// * the 0x20 info bit is written only when the map key itself travelled with the item
//   (Yjs's lazily decoded items forget the bit when it came without a key);
// * sub-document options are reduced to what Yjs keeps (`gc: false`, `autoLoad: true`,
//   `meta`).

/// Merges updates into one update, as Yjs's `mergeUpdates` does.
///
/// Structs are taken client by client, highest client first, lowest clock first. What an
/// earlier update already covered is dropped, overlapping structs are cut (the cut part
/// gets the unit before it as origin), adjacent GC structs are joined, item structs are
/// never joined, and missing clocks between two structs of a client become a Skip
/// struct. Delete sets are unioned, sorted and merged. Skip structs in the inputs are
/// ignored: the gaps they stood for are found again.
///
/// A single update is returned unchanged, byte for byte (Yjs does the same), once it has
/// been checked to decode. No updates give the empty update `00 00`.
public func mergeUpdates(_ updates: [[UInt8]]) throws(AccordError) -> [UInt8] {
    if updates.count == 1 {
        _ = try DecodedUpdate.decode(updates[0])
        return updates[0]
    }
    var decoded: [DecodedUpdate] = []
    decoded.reserveCapacity(updates.count)
    for u in updates { decoded.append(try DecodedUpdate.decode(u)) }
    return UpdateMerger.merge(decoded)
}

/// Whether `update` is the empty update `00 00` (no structs, no deletions): what a peer
/// with nothing to offer sends as its sync step 2. Applying or storing it changes
/// nothing, so relays and clients skip it.
public func isEmptyUpdate(_ update: [UInt8]) -> Bool { update == [0, 0] }

/// The part of `update` that a peer with state vector `stateVector` lacks, as Yjs's
/// `diffUpdate` computes it: for each client, the structs from the peer's clock on (the
/// first one cut at that clock), in the order the update holds them, never starting a
/// group with a Skip, followed by the update's whole delete set.
public func diffUpdate(_ update: [UInt8], stateVector: [UInt8]) throws(AccordError) -> [UInt8] {
    let decoded = try DecodedUpdate.decode(update)
    let sv = try StateVector.decode(stateVector)
    return UpdateMerger.diff(decoded, against: sv)
}

/// The state vector an update alone provides (section 3.4): per client, the clock reached
/// by its structs from clock 0 on without a gap; a client whose structs start above 0 is
/// left out, and counting stops at the first Skip. Entries are written in the order their
/// clients appear in the update (Yjs does not sort them; a merged update lists clients
/// descending).
///
/// Yjs counts differently only for inputs it never writes itself: when the very first
/// struct is a Skip at clock 0 (Yjs counts that Skip), and when two groups of one client
/// follow each other with a gap between them (Yjs counts across the gap). Both are
/// counted here as the gap-free rule says.
public func encodeStateVectorFromUpdate(_ update: [UInt8]) throws(AccordError) -> [UInt8] {
    let decoded = try DecodedUpdate.decode(update)
    return UpdateMerger.stateVector(of: decoded)
}
