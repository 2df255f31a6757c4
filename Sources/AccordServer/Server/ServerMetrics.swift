import AccordNet
import Foundation

/// Counters for `GET /metrics`, in the Prometheus text format. Updated from the sync
/// queue, read from the HTTP thread, so every access takes the lock.
public final class ServerMetrics: @unchecked Sendable {
    private let lock = NSLock()
    private var connections = 0
    private var rooms = 0
    private var messagesIn = 0
    private var messagesOut = 0
    private var bytesIn = 0
    private var bytesOut = 0
    private var errors: [String: Int] = [:]
    private var limitRefusals: [ServerLimit: Int] = [:]
    private var persistBuckets = [Int](repeating: 0, count: ServerMetrics.persistBounds.count)
    private var persistCount = 0
    private var persistSumMilliseconds: UInt64 = 0
    /// Updates read from the shared log that other nodes of a cluster wrote (or this
    /// one, when a catch-up reread them), and catch-up reads.
    private var clusterUpdates = 0
    private var clusterReads = 0
    /// TLS connections that failed: handshakes that did not finish, records refused.
    private var tlsFailures = 0
    /// Time from the LISTEN thread receiving a notice of other nodes' appends to its
    /// updates being applied and relayed by the sync queue (same buckets as persist).
    private var noticeBuckets = [Int](repeating: 0, count: ServerMetrics.persistBounds.count)
    private var noticeCount = 0
    private var noticeSumMilliseconds: UInt64 = 0
    /// The network layer's outbound queues, read when the metrics are: they change on
    /// every send and write, which this lock need not see.
    private var outbound: (@Sendable () -> OutboundStatistics)?
    /// The notification outbox's counters, read when the metrics are.
    private var notifications: (@Sendable () -> NotificationOutbox.Statistics)?
    /// The dashboard's own CPU time (``DashboardCPU``), read outside `lock`.
    private var dashboardCPU: DashboardCPU?

    /// Upper bounds (milliseconds) of the persist-latency histogram buckets.
    public static let persistBounds: [UInt64] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000]

    public init() {}

    private func update<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    func setGauges(connections: Int, rooms: Int) { update { self.connections = connections; self.rooms = rooms } }
    func received(bytes: Int) { update { messagesIn += 1; bytesIn += bytes } }
    func sent(bytes: Int) { update { messagesOut += 1; bytesOut += bytes } }
    func error(_ code: String) { update { errors[code, default: 0] += 1 } }
    /// A request, connection or message refused by one of the caps.
    func refused(_ limit: ServerLimit) { update { limitRefusals[limit, default: 0] += 1 } }
    /// One catch-up read of a shared log that brought `updates` updates.
    func clusterApplied(_ updates: Int) { update { clusterReads += 1; clusterUpdates += updates } }
    /// Updates applied straight from a notice (no read).
    func clusterCarried(_ updates: Int) { update { clusterUpdates += updates } }
    /// A TLS connection failed (`NET_TLS_HANDSHAKE_FAILED`) and was closed.
    func tlsFailed() { update { tlsFailures += 1 } }
    /// A notice of other nodes' appends was applied `milliseconds` after the LISTEN
    /// thread received it (the sync queue's wait, and a catch-up read when one was needed).
    func clusterNoticeApplied(milliseconds: UInt64) {
        update {
            if let bucket = Self.persistBounds.firstIndex(where: { milliseconds <= $0 }) { noticeBuckets[bucket] += 1 }
            noticeCount += 1
            noticeSumMilliseconds += milliseconds
        }
    }
    func readOutbound(from source: @escaping @Sendable () -> OutboundStatistics) { update { outbound = source } }
    func readNotifications(from source: @escaping @Sendable () -> NotificationOutbox.Statistics) {
        update { notifications = source }
    }

    func readDashboardCPU(from cpu: DashboardCPU) { update { dashboardCPU = cpu } }
    /// Time from appending an update to the store reporting it durable.
    func persisted(latencies: [UInt64]) {
        guard !latencies.isEmpty else { return }
        update {
            for latency in latencies {
                if let bucket = Self.persistBounds.firstIndex(where: { latency <= $0 }) { persistBuckets[bucket] += 1 }
                persistCount += 1
                persistSumMilliseconds += latency
            }
        }
    }

    /// A snapshot of the counters, for tests and tools.
    public struct Snapshot: Sendable, Hashable {
        public var connections: Int
        public var rooms: Int
        public var messagesIn: Int
        public var messagesOut: Int
        public var bytesIn: Int
        public var bytesOut: Int
        public var errors: [String: Int]
        public var persistCount: Int
        /// Bytes waiting in every connection's outbound queue.
        public var queuedBytes: Int
        /// The most any one connection ever had queued.
        public var peakConnectionQueuedBytes: Int
        /// Connections closed with `SLOW_CONSUMER`.
        public var slowConsumerCloses: Int
        /// Refusals by cap (absent: none yet).
        public var limitRefusals: [ServerLimit: Int] = [:]
        /// Persist latencies counted per bucket of ``ServerMetrics/persistBounds`` (not
        /// cumulative); those over the last bound are `persistCount` less their sum.
        public var persistBuckets: [Int] = []
    }

    public var snapshot: Snapshot {
        let queues = outboundStatistics
        lock.lock()
        defer { lock.unlock() }
        return Snapshot(
            connections: connections, rooms: rooms, messagesIn: messagesIn, messagesOut: messagesOut,
            bytesIn: bytesIn, bytesOut: bytesOut, errors: errors, persistCount: persistCount,
            queuedBytes: queues?.queuedBytes ?? 0, peakConnectionQueuedBytes: queues?.peakConnectionBytes ?? 0,
            slowConsumerCloses: queues?.slowConsumerCloses ?? 0, limitRefusals: limitRefusals,
            persistBuckets: persistBuckets)
    }

    /// Read outside `lock`: the source takes the network layer's own lock.
    private var outboundStatistics: OutboundStatistics? {
        let source = update { outbound }
        return source?()
    }

    /// The Prometheus exposition text.
    public func render() -> String {
        let queues = outboundStatistics
        let outbox = update { notifications }?() ?? NotificationOutbox.Statistics()
        let dashboard = update { dashboardCPU }?.seconds ?? [:]
        lock.lock()
        defer { lock.unlock() }
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ lines: [String]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for line in lines { out += line + "\n" }
        }
        /// A histogram over ``persistBounds`` (milliseconds): `buckets` per bound, not cumulative.
        func histogram(_ name: String, _ help: String, _ buckets: [Int], count: Int, sum: UInt64) {
            var cumulative = 0
            var lines: [String] = []
            for (index, bound) in Self.persistBounds.enumerated() {
                cumulative += buckets[index]
                lines.append("\(name)_bucket{le=\"\(bound)\"} \(cumulative)")
            }
            lines += ["\(name)_bucket{le=\"+Inf\"} \(count)", "\(name)_sum \(sum)", "\(name)_count \(count)"]
            metric(name, "histogram", help, lines)
        }
        /// A metric with one unlabelled value.
        func single(_ name: String, _ type: String, _ help: String, _ value: some Numeric) {
            metric(name, type, help, ["\(name) \(value)"])
        }
        single("accord_connections", "gauge", "Open sync WebSocket connections.", connections)
        single("accord_rooms", "gauge", "Documents loaded in memory.", rooms)
        single("accord_messages_received_total", "counter", "Sync messages received.", messagesIn)
        single("accord_messages_sent_total", "counter", "Sync messages sent.", messagesOut)
        single("accord_bytes_received_total", "counter", "Sync message bytes received.", bytesIn)
        single("accord_bytes_sent_total", "counter", "Sync message bytes sent.", bytesOut)
        single("accord_queued_bytes", "gauge",
               "Bytes waiting in connections' outbound queues.", queues?.queuedBytes ?? 0)
        single("accord_slow_consumer_closes_total", "counter",
               "Connections closed with SLOW_CONSUMER: their outbound queue passed the limit.", queues?.slowConsumerCloses ?? 0)
        metric("accord_errors_total", "counter", "Coded errors sent to clients, by code.",
               errors.keys.sorted().map { "accord_errors_total{code=\"\($0)\"} \(errors[$0]!)" })
        // Every cap is listed, refused or not, so a dashboard sees the series from the start.
        metric("accord_limit_refusals_total", "counter", "Connections, documents and messages refused by a per-user or per-connection cap, by cap.",
               ServerLimit.allCases.map { "accord_limit_refusals_total{limit=\"\($0.metricLabel)\"} \(limitRefusals[$0] ?? 0)" })
        histogram("accord_persist_latency_milliseconds", "Time from appending an update to it being durable.",
                  persistBuckets, count: persistCount, sum: persistSumMilliseconds)
        single("accord_cluster_log_reads_total", "counter",
               "Reads of a shared document log after another node's notice (cluster).", clusterReads)
        single("accord_cluster_updates_applied_total", "counter",
               "Updates read back from shared document logs and applied to open rooms (cluster).", clusterUpdates)
        histogram("accord_cluster_notice_apply_milliseconds",
                  "Time from this node's LISTEN thread receiving another node's append notice to its updates being relayed (cluster).",
                  noticeBuckets, count: noticeCount, sum: noticeSumMilliseconds)
        single("accord_tls_failures_total", "counter",
               "TLS connections closed because their handshake failed or a record was refused.", tlsFailures)
        single("accord_notifications_pending", "gauge",
               "Notifications in the outbox, waiting for the webhook (or for one to be configured).", outbox.pending)
        single("accord_notifications_queued_total", "counter", "Notifications put in the outbox.", outbox.queued)
        single("accord_notifications_delivered_total", "counter",
               "Notifications the webhook answered with 2xx.", outbox.delivered)
        single("accord_notification_delivery_failures_total", "counter",
               "Webhook attempts that failed (retried with backoff).", outbox.failedAttempts)
        single("accord_notifications_dropped_total", "counter",
               "Notifications dropped: the outbox was full, or one failed every attempt.", outbox.dropped)
        // Every part is listed, 0 included, so a rate over it starts at the first scrape.
        metric("accord_dashboard_cpu_seconds_total", "counter",
               "CPU time the dashboard's own work took (sampler, admin dashboard routes, live socket, hub hooks), by part.",
               DashboardCPU.Part.allCases.map { part in
                   "accord_dashboard_cpu_seconds_total{part=\"\(part.rawValue)\"} \(String(format: "%.6f", dashboard[part] ?? 0))"
               })
        return out
    }
}
