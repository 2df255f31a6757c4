import AccordNet

/// What `accord-bench cluster` reads from each node's `/metrics` after a run, to say
/// where the cross-node time went: the writer's append-to-commit time
/// (`accord_persist_latency_milliseconds`), the reader's notice-to-relay time
/// (`accord_cluster_notice_apply_milliseconds`), and how many notices needed a read of
/// the log. Histogram percentiles are bucket upper bounds (1, 2, 5, 10, 25, 50, 100,
/// 250 … ms), so they say "at most", not an exact figure.
struct ClusterNodeMetrics: Sendable {
    /// Cumulative bucket counts by upper bound (Double.infinity for +Inf), per histogram name.
    var histograms: [String: [(bound: Double, count: Int)]] = [:]
    var counters: [String: Int] = [:]

    static func fetch(port: Int, http: HTTPClient) async throws -> ClusterNodeMetrics {
        let response = try await http.send(HTTPClientRequest(.get, "http://127.0.0.1:\(port)/metrics"), timeout: .seconds(10))
        guard response.status == 200 else { throw BenchFailure("/metrics answered \(response.status)") }
        return ClusterNodeMetrics(text: String(decoding: response.body, as: UTF8.self))
    }

    init(text: String) {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Double(parts[1]) else { continue }
            let name = String(parts[0])
            if let brace = name.firstIndex(of: "{"), name[..<brace].hasSuffix("_bucket"),
               let start = name.range(of: "le=\""), let end = name[start.upperBound...].firstIndex(of: "\"")
            {
                let base = String(name[..<brace].dropLast("_bucket".count))
                let bound = name[start.upperBound..<end] == "+Inf" ? Double.infinity : Double(name[start.upperBound..<end]) ?? .infinity
                histograms[base, default: []].append((bound, Int(value)))
            } else if !name.contains("{") {
                counters[name] = Int(value)
            }
        }
    }

    /// The smallest bucket bound holding fraction `q` of the observations of `name`
    /// summed over `nodes`; nil without observations.
    static func percentile(_ name: String, _ q: Double, over nodes: [ClusterNodeMetrics]) -> Double? {
        var merged: [Double: Int] = [:]
        for node in nodes { for (bound, count) in node.histograms[name] ?? [] { merged[bound, default: 0] += count } }
        guard let total = merged[.infinity], total > 0 else { return nil }
        for bound in merged.keys.sorted() where Double(merged[bound]!) >= q * Double(total) { return bound }
        return nil
    }

    static func total(_ name: String, over nodes: [ClusterNodeMetrics]) -> Int {
        nodes.reduce(0) { $0 + ($1.counters[name] ?? 0) }
    }
}
