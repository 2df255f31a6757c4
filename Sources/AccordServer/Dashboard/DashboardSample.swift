import AccordCRDT

/// One second of the server as the dashboard's overview charts it: gauges as read at
/// the end of the second, rates and counts over the second.
struct DashboardSample: Sendable, Hashable {
    /// Milliseconds since the epoch at the end of the second; `sequence` orders samples.
    var time: UInt64
    var sequence: UInt64
    var connections: Int
    var rooms: Int
    var messagesIn: Int
    var messagesOut: Int
    var bytesIn: Int
    var bytesOut: Int
    /// Upper bounds (milliseconds) of the persist-latency buckets holding the 50th and
    /// 99th percentile of this second's acks; nil when nothing was acked.
    var ackP50: UInt64?
    var ackP99: UInt64?
    /// Coded errors sent this second, by code (absent: none).
    var errors: [String: Int]
    /// Cap refusals this second, by cap.
    var refusals: [String: Int]
    var residentBytes: Int?
    var openDescriptors: Int?

    var json: AnyValue {
        func optional(_ value: Int?) -> AnyValue { value.map { .int(Int64($0)) } ?? .null }
        func counts(_ counts: [String: Int]) -> AnyValue {
            .object(OrderedObject(counts.keys.sorted().map { ($0, AnyValue.int(Int64(counts[$0]!))) }))
        }
        return .object(OrderedObject([
            ("time", .int(Int64(time))), ("sequence", .int(Int64(sequence))),
            ("connections", .int(Int64(connections))), ("rooms", .int(Int64(rooms))),
            ("messagesIn", .int(Int64(messagesIn))), ("messagesOut", .int(Int64(messagesOut))),
            ("bytesIn", .int(Int64(bytesIn))), ("bytesOut", .int(Int64(bytesOut))),
            ("ackP50", optional(ackP50.map(Int.init))), ("ackP99", optional(ackP99.map(Int.init))),
            ("errors", counts(errors)), ("refusals", counts(refusals)),
            ("residentBytes", optional(residentBytes)), ("openDescriptors", optional(openDescriptors)),
        ]))
    }

    /// The sample for the second between two metric snapshots.
    static func between(
        _ before: ServerMetrics.Snapshot, _ after: ServerMetrics.Snapshot, time: UInt64, sequence: UInt64,
        residentBytes: Int?, openDescriptors: Int?
    ) -> DashboardSample {
        var errors: [String: Int] = [:]
        for (code, count) in after.errors where count > (before.errors[code] ?? 0) {
            errors[code] = count - (before.errors[code] ?? 0)
        }
        var refusals: [String: Int] = [:]
        for (limit, count) in after.limitRefusals where count > (before.limitRefusals[limit] ?? 0) {
            refusals[limit.metricLabel] = count - (before.limitRefusals[limit] ?? 0)
        }
        var buckets = after.persistBuckets
        for index in buckets.indices where index < before.persistBuckets.count { buckets[index] -= before.persistBuckets[index] }
        let acked = max(0, after.persistCount - before.persistCount)
        return DashboardSample(
            time: time, sequence: sequence, connections: after.connections, rooms: after.rooms,
            messagesIn: max(0, after.messagesIn - before.messagesIn), messagesOut: max(0, after.messagesOut - before.messagesOut),
            bytesIn: max(0, after.bytesIn - before.bytesIn), bytesOut: max(0, after.bytesOut - before.bytesOut),
            ackP50: percentile(0.50, of: buckets, total: acked), ackP99: percentile(0.99, of: buckets, total: acked),
            errors: errors, refusals: refusals, residentBytes: residentBytes, openDescriptors: openDescriptors)
    }

    /// The upper bound of the bucket the `fraction` quantile falls in (the histogram
    /// keeps no finer detail); past the last bound, twice the last bound stands for "more".
    static func percentile(_ fraction: Double, of buckets: [Int], total: Int) -> UInt64? {
        guard total > 0 else { return nil }
        let rank = Int((Double(total) * fraction).rounded(.up))
        var seen = 0
        for (index, count) in buckets.enumerated() where index < ServerMetrics.persistBounds.count {
            seen += count
            if seen >= rank { return ServerMetrics.persistBounds[index] }
        }
        return (ServerMetrics.persistBounds.last ?? 0) * 2
    }
}
