/// Joins `base` (a document's state, as update v1; nil for none) and `updates` made
/// after it into one update that a document applies to the same state, without
/// replaying them in a document: each client's structs are copied, byte for byte, one
/// run after another. What a store's compaction does with a log of insertions, at a
/// small fraction of the cost of replaying it.
///
/// Nil, leaving the caller to replay, unless the updates fit that shape exactly:
/// - all are well formed and hold no Skip struct (checked as ``DecodedUpdate/decode(_:)``
///   and ``Doc/validate(_:)`` check them);
/// - `updates` delete nothing (the base's delete set is kept as it is): so a replay would
///   have no deleted content to collect;
/// - every client's structs, over all of them, start at clock 0 and follow each other
///   with no gap and no overlap (an update applied twice overlaps);
/// - every struct points only at content they hold (nothing would be pending);
/// - no struct starting an update could be joined onto the struct before it (text typed
///   in two transactions): a document would hold those as one struct, the joined update
///   as two, and a document's smaller form is worth the replay.
///
/// Client groups come highest client first, as ``Doc/encodeStateAsUpdate()`` writes them.
public func concatenateUpdates(base: [UInt8]?, appending updates: [[UInt8]]) -> [UInt8]? {
    guard let plan = UpdateJoinPlan(base: base, appending: updates) else { return nil }
    let inputs = (base.map { [$0] } ?? []) + updates
    var w = ByteWriter(capacity: inputs.reduce(16) { $0 + $1.count })
    w.writeVarUInt(plan.runsByClient.count)
    for client in plan.runsByClient.keys.sorted(by: >) {
        let runs = plan.runsByClient[client] ?? []
        w.writeVarUInt(runs.reduce(0) { $0 + $1.run.structCount })
        w.writeVarUInt(client)
        w.writeVarUInt(0)
        for (input, run) in runs { w.writeRaw(inputs[input][run.bytes]) }
    }
    if let base, let deleteSet = plan.baseDeleteSet {
        w.writeRaw(base[deleteSet])
    } else {
        w.writeVarUInt(0)
    }
    return w.takeBytes()
}

/// Whether ``concatenateUpdates(base:appending:)`` would join these updates (rather
/// than leave them to a replay), without making the joined update: when they join,
/// the joined update holds the same structs, byte for byte, as `base` and `updates`
/// together, so a store need not write it to keep its document small.
public func updatesJoin(base: [UInt8]?, appending updates: [[UInt8]]) -> Bool {
    UpdateJoinPlan(base: base, appending: updates) != nil
}

/// How ``concatenateUpdates(base:appending:)`` joins its inputs: each client's runs in
/// clock order (by input: 0 is the base when there is one), and the base's delete set.
private struct UpdateJoinPlan {
    var runsByClient: [ClientID: [(input: Int, run: UpdateScan.Run)]] = [:]
    var baseDeleteSet: Range<Int>?

    /// Nil when the inputs do not have the shape described at ``concatenateUpdates(base:appending:)``.
    init?(base: [UInt8]?, appending updates: [[UInt8]]) {
        // The updates first, the base (a whole document, the longest to scan) last: a log
        // that deletes or types on, the usual reasons to decline, is then found before the
        // base is read. A run whose first struct may join its left starts after clock 0, so
        // it either follows another run (a join) or leaves a gap: declined either way.
        var scans: [UpdateScan] = []
        scans.reserveCapacity(updates.count + 1)
        for bytes in updates {
            guard let scan = UpdateScan(bytes), !scan.deletes, !scan.runs.contains(where: \.firstMayJoinLeft) else { return nil }
            scans.append(scan)
        }
        if let base {
            guard let scan = UpdateScan(base), !scan.runs.contains(where: \.firstMayJoinLeft) else { return nil }
            scans.insert(scan, at: 0)
        }
        // Each client's runs, in clock order, which must join end to start from 0.
        for (input, scan) in scans.enumerated() {
            for run in scan.runs where run.structCount > 0 { runsByClient[run.client, default: []].append((input, run)) }
        }
        var ends: [ClientID: Int] = [:]
        for (client, runs) in runsByClient {
            let ordered = runs.sorted { $0.run.start < $1.run.start }
            var clock = 0
            for entry in ordered {
                guard entry.run.start == clock else { return nil }
                clock = entry.run.end
            }
            runsByClient[client] = ordered
            ends[client] = clock
        }
        for scan in scans {
            for (client, clock) in scan.references where clock >= ends[client, default: 0] { return nil }
        }
        if base != nil { baseDeleteSet = scans.first?.deleteSet }
    }
}
