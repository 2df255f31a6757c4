import AccordCRDT
import AccordNet
import AccordStore
import Dispatch
import Foundation

/// The dashboard's live side: samples the server once a second into a 15-minute ring,
/// keeps each document's recent updates, and streams both to signed-in dashboard pages
/// over a WebSocket (`/v1/admin/dashboard/live?ticket=...`).
///
/// A browser cannot put an `Authorization` header on a WebSocket, and the admin token
/// must never appear in a URL (logs and proxies keep URLs). So the page first trades
/// its token for a ticket (`POST /v1/admin/dashboard/ticket`, header-authenticated):
/// random, single-use, valid for ``ticketLifetimeMilliseconds``. A socket without a
/// valid ticket is closed with 4401 `UNAUTHENTICATED` before anything is sent.
///
/// Messages (JSON text in binary frames): `{"type": "hello", "samples": [...]}` once,
/// `{"type": "sample", "sample": {...}}` each second, and `{"type": "changed",
/// "documents": [ids], "activity": bool}` within ``noticeIntervalMilliseconds`` of a
/// stored update (`documents`) or any sync traffic or connection change (`activity`),
/// so open tables and document pages refetch instead of polling.
///
/// Everything mutable is owned by `queue`, except the recent updates, which the sync
/// hub reports from its own queue under `lock`.
final class DashboardMonitor: @unchecked Sendable {
    static let livePath = "/v1/admin/dashboard/live"
    static let historyCapacity = 900
    static let ticketLifetimeMilliseconds: UInt64 = 30_000
    static let maxOutstandingTickets = 1000
    static let noticeIntervalMilliseconds = 250
    static let recentUpdatesPerDocument = 20
    static let unauthenticatedCloseCode: UInt16 = 4401

    struct RecentUpdate: Sendable, Hashable {
        var time: UInt64
        var bytes: Int
    }

    private let queue = DispatchQueue(label: "accord.dashboard")
    private let metrics: ServerMetrics
    /// Where the monitor's own work is counted (``DashboardCPU``).
    let cpu: DashboardCPU
    private let now: @Sendable () -> UInt64
    private var timer: (any DispatchSourceTimer)?
    private var ring = SampleRing<DashboardSample>(capacity: DashboardMonitor.historyCapacity)
    private var previous: ServerMetrics.Snapshot?
    private var sequence: UInt64 = 0
    private var ticks = 0
    private var subscribers: [UInt64: WebSocketConnection] = [:]
    private var tickets: [String: (user: String, expires: UInt64)] = [:]
    /// Traffic counters at the last notice: a difference means something happened.
    private var lastActivity: [Int] = []

    private var storeSubscription: StoreSubscription?

    private let lock = NSLock()
    private var recent: [DocumentID: SampleRing<RecentUpdate>] = [:]
    private var changed: Set<DocumentID> = []

    init(metrics: ServerMetrics, cpu: DashboardCPU, now: @escaping @Sendable () -> UInt64) {
        self.metrics = metrics
        self.cpu = cpu
        self.now = now
    }

    /// Starts sampling, and listens to `documents` so a title, deletion or compaction
    /// reaches open pages as a `changed` notice like an edit does.
    func start(observing documents: DocumentStore) {
        let subscription = documents.observeChanges { [weak self] change in
            guard let self else { return }
            cpu.measureBrief(.hooks) { documentChanged(change.id) }
        }
        queue.sync {
            storeSubscription = subscription
            previous = metrics.snapshot
            let timer = DispatchSource.makeTimerSource(queue: queue)
            let interval = Self.noticeIntervalMilliseconds
            timer.schedule(deadline: .now() + .milliseconds(interval), repeating: .milliseconds(interval))
            timer.setEventHandler { [weak self] in self?.tick() }
            timer.resume()
            self.timer = timer
        }
    }

    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
            storeSubscription?.cancel()
            storeSubscription = nil
            for socket in subscribers.values { socket.close(code: 1001, reason: "server shutting down") }
            subscribers = [:]
        }
    }

    // MARK: Samples

    /// The samples of the last 15 minutes, oldest first.
    var history: [DashboardSample] { queue.sync { ring.elements } }

    /// Each part measured on its own (never one inside another, which would count twice):
    /// the sample is `sampler` work, everything only an open page needs is `live`.
    private func tick() {
        ticks += 1
        if ticks % (1000 / Self.noticeIntervalMilliseconds) == 0 {
            let sample = cpu.measure(.sampler) { takeSample() }
            if !subscribers.isEmpty {
                cpu.measure(.live) {
                    broadcast(.object(OrderedObject([("type", .string("sample")), ("sample", sample.json)])))
                }
            }
        }
        guard !subscribers.isEmpty else { return }
        cpu.measure(.live) { noticeIfChanged() }
    }

    /// A `changed` notice when a document changed or traffic moved since the last one.
    private func noticeIfChanged() {
        let documents = lock.withLock { () -> Set<DocumentID> in
            defer { changed = [] }
            return changed
        }
        let snapshot = metrics.snapshot
        let activity = [snapshot.connections, snapshot.rooms, snapshot.messagesIn, snapshot.messagesOut]
        let active = activity != lastActivity
        lastActivity = activity
        guard active || !documents.isEmpty else { return }
        broadcast(.object(OrderedObject([
            ("type", .string("changed")),
            ("documents", .array(documents.map(\.rawValue).sorted().map(AnyValue.string))),
            ("activity", .bool(active)),
        ])))
    }

    private func takeSample() -> DashboardSample {
        let snapshot = metrics.snapshot
        sequence += 1
        let sample = DashboardSample.between(
            previous ?? snapshot, snapshot, time: now(), sequence: sequence,
            residentBytes: ProcessResources.residentBytes(), openDescriptors: ProcessResources.openDescriptors())
        previous = snapshot
        ring.append(sample)
        return sample
    }

    private func broadcast(_ message: AnyValue) {
        let bytes = Array(message.jsonText.utf8)
        for socket in subscribers.values { socket.send(bytes) }
    }

    // MARK: Recent updates

    /// Called by the sync hub (on its queue) for every update it stored.
    func updateAppended(_ document: DocumentID, bytes: Int, time: UInt64) {
        lock.withLock {
            recent[document, default: SampleRing(capacity: Self.recentUpdatesPerDocument)]
                .append(RecentUpdate(time: time, bytes: bytes))
            changed.insert(document)
        }
    }

    private func documentChanged(_ document: DocumentID) {
        lock.withLock { _ = changed.insert(document) }
    }

    /// The document's last updates since this server started, newest first.
    func recentUpdates(_ document: DocumentID) -> [RecentUpdate] {
        lock.withLock { (recent[document]?.elements ?? []).reversed() }
    }

    /// A deleted document's list goes with it.
    func forget(_ document: DocumentID) {
        lock.withLock {
            recent[document] = nil
            changed.insert(document)
        }
    }

    // MARK: Live sockets

    /// A fresh single-use ticket for `user`'s next live socket.
    func issueTicket(for user: String) -> (ticket: String, expiresInMilliseconds: UInt64) {
        let ticket = ServerSecret.generate().map { String(format: "%02x", $0) }.joined()
        queue.sync {
            let now = now()
            tickets = tickets.filter { $0.value.expires > now }
            // Bounded even if a script asks for tickets in a loop: the oldest goes first.
            if tickets.count >= Self.maxOutstandingTickets, let oldest = tickets.min(by: { $0.value.expires < $1.value.expires }) {
                tickets[oldest.key] = nil
            }
            tickets[ticket] = (user, now + Self.ticketLifetimeMilliseconds)
        }
        return (ticket, Self.ticketLifetimeMilliseconds)
    }

    /// True for events of the dashboard's live sockets (the server routes the rest to the sync hub).
    static func owns(_ event: WebSocketServerEvent) -> Bool {
        switch event {
        case .opened(let socket), .message(let socket, _), .messageTooLarge(let socket), .messageOverBudget(let socket),
             .closed(let socket, _, _):
            return socket.request.path == livePath
        }
    }

    func handle(_ event: WebSocketServerEvent) {
        queue.async { [self] in
            cpu.measure(.live) {
                switch event {
                case .opened(let socket): opened(socket)
                case .closed(let socket, _, _): subscribers[socket.id] = nil
                // The page never sends; whatever arrives is ignored.
                case .message, .messageTooLarge, .messageOverBudget: break
                }
            }
        }
    }

    private func opened(_ socket: WebSocketConnection) {
        let presented = socket.request.queryValue("ticket") ?? ""
        guard timer != nil, let entry = tickets.removeValue(forKey: presented), entry.expires > now() else {
            metrics.error(ErrorCode.unauthenticated.rawValue)
            socket.close(code: Self.unauthenticatedCloseCode, reason: ErrorCode.unauthenticated.rawValue)
            return
        }
        subscribers[socket.id] = socket
        let hello = AnyValue.object(OrderedObject([
            ("type", .string("hello")), ("user", .string(entry.user)),
            ("samples", .array(ring.elements.map(\.json))),
        ]))
        socket.send(Array(hello.jsonText.utf8))
    }
}
