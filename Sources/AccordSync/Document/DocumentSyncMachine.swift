public import AccordCRDT
public import AccordStore

/// One document's client side on the multiplexed connection, as a pure state machine:
/// events in (methods taking `now` in milliseconds), ``DocumentSyncAction``s out. The
/// driver owns the socket, the store and the `Doc`, calls one machine from one place
/// at a time, and performs the actions in order.
///
/// Local updates are sent as Accord `update` messages whose sequence is the store
/// sequence, so the server's cumulative ack becomes ``DocumentSyncAction/acknowledge(through:)``
/// unchanged. The store, not the machine, is the source of truth for what is
/// unacknowledged: the driver reads `DocumentStore.unacknowledgedUpdates(_:)` at every
/// (re)connect and hands it to ``connectionReady(_:unacknowledged:now:)``, so updates
/// that survived an app kill are resent, and acks make them exactly once in effect.
///
/// What each ``SyncMode`` sends and accepts is in its table. A document that is
/// `localOnly` never produces a frame: every event is answered with no action.
public struct DocumentSyncMachine: Sendable {
    /// How long a handshake may go unanswered before a `NETWORK_TIMEOUT` sync error (ms).
    public static let defaultHandshakeBudget: UInt64 = 10_000

    public let id: DocumentID
    public let localOnly: Bool
    public let handshakeBudget: UInt64
    /// How often (ms) a connected `realtime` document runs a round of its own (see
    /// ``defaultResyncInterval``); nil never.
    public let resyncInterval: UInt64?
    public private(set) var mode: SyncMode
    public private(set) var isConnected = false
    /// The last round finished: its step 2 (if asked for) arrived and every update sent is
    /// acked. Never while ``parked``.
    public private(set) var isSynced = false
    /// Why the server refused this document's writes; while set, local updates are kept
    /// (in the store) but never sent, and the server's step 1 is not answered.
    public internal(set) var parked: AccordError?
    /// The highest sequence the server acknowledged, as far as this machine knows.
    public internal(set) var acknowledged: UInt64
    /// How many step 2s answering our step 1 were taken (over every connection): the
    /// server's state has reached the document when this grows.
    public internal(set) var serverStatesReceived = 0
    /// The server's frame limit from its hello; nil while offline.
    public private(set) var maxFrameBytes: UInt64?

    /// Unacknowledged local updates, ascending by sequence.
    var outbox: [OutboundUpdate] = []
    /// Every outbox update up to this sequence was sent on the current connection.
    var sentThrough: UInt64
    /// Our step 1s whose step 2 has not arrived (a counter, since a second round may
    /// start before the first is answered and each answer carries something).
    var stepTwosAwaited = 0
    /// A round ran on this connection, so "nothing outstanding" means synced.
    var roundStarted = false
    /// When the handshake budget runs out, while behind.
    var deadline: UInt64?
    /// When the next polling round is due.
    var nextPoll: UInt64?
    /// When the next periodic resync round is due (`realtime` only).
    var nextResync: UInt64?
    /// A round ran because the `Doc` holds updates whose predecessors are missing; not
    /// again until they arrive or the connection changes, so a gap the server cannot
    /// fill either does not turn every live update into another round.
    var askedForMissing = false
    /// `sync()` was asked for while offline: run the round on connect.
    var syncWanted = false
    /// The tick time last requested from the driver, so it is requested once.
    var scheduled: UInt64?

    /// - Parameter acknowledged: the store's acknowledged sequence for the document.
    public init(
        id: DocumentID, mode: SyncMode = .realtime, localOnly: Bool = false, acknowledged: UInt64 = 0,
        handshakeBudget: UInt64 = defaultHandshakeBudget, resyncInterval: UInt64? = defaultResyncInterval
    ) {
        self.id = id
        self.resyncInterval = resyncInterval
        self.mode = mode
        self.localOnly = localOnly
        self.acknowledged = acknowledged
        self.sentThrough = acknowledged
        self.handshakeBudget = handshakeBudget
    }

    /// Whether something sent is still unanswered: a step 2, or an ack (unless parked,
    /// when refused updates will never be acked).
    public var isBehind: Bool { stepTwosAwaited > 0 || (parked == nil && sentThrough > acknowledged) }

    /// Local updates not yet acknowledged, as the machine knows them.
    public var unacknowledged: [OutboundUpdate] { outbox }

    // MARK: Connection

    /// The connection is ready: the server's `hello` arrived (its frame limit is kept;
    /// its heartbeat belongs to the connection, see ``HeartbeatMonitor``).
    /// `unacknowledged` is what the store holds unacknowledged right now.
    public mutating func connectionReady(
        _ hello: ServerHello, unacknowledged: [OutboundUpdate], now: UInt64
    ) -> [DocumentSyncAction] {
        guard !localOnly else { return [] }
        resetConnectionState()
        isConnected = true
        maxFrameBytes = hello.maxFrameBytes
        // Updates the machine heard of after the driver read the store are kept.
        let stored = unacknowledged.filter { $0.sequence > acknowledged }
        let newest = stored.last?.sequence ?? acknowledged
        outbox = stored + outbox.filter { $0.sequence > newest }
        return finish(startModeOnConnection(now: now))
    }

    /// The connection is gone. Nothing is sent; unacknowledged updates stay for the next one.
    public mutating func connectionLost() -> [DocumentSyncAction] {
        guard !localOnly else { return [] }
        resetConnectionState()
        return []
    }

    // MARK: Local changes and requests

    /// A local update is durable in the store under `update.sequence`. Deliver it after
    /// the store's flush (its change notification), never before: only durable updates
    /// may be sent, since an ack promises the server has them.
    public mutating func localUpdateAppended(_ update: OutboundUpdate, now: UInt64) -> [DocumentSyncAction] {
        localUpdatesAppended([update], now: now)
    }

    /// Local updates made durable by one store commit, ascending. Sent together (merged
    /// where they fit one message), so a burst of edits does not become a burst of messages.
    public mutating func localUpdatesAppended(_ updates: [OutboundUpdate], now: UInt64) -> [DocumentSyncAction] {
        guard !localOnly else { return [] }
        var added = false
        for update in updates where update.sequence > max(acknowledged, outbox.last?.sequence ?? 0) {
            outbox.append(update)
            added = true
        }
        guard added, isConnected, mode.pushesLive, roundStarted else { return [] }
        return finish(sendUnsent() + settle(now: now))
    }

    /// Switches the mode. A connected document starts the new mode as it would on connect.
    public mutating func setMode(_ newMode: SyncMode, now: UInt64) -> [DocumentSyncAction] {
        guard newMode != mode else { return [] }
        mode = newMode
        guard !localOnly, isConnected else { return [] }
        stepTwosAwaited = 0
        roundStarted = false
        deadline = nil
        nextPoll = nil
        nextResync = nil
        isSynced = false
        return finish(startModeOnConnection(now: now))
    }

    /// The app asked for a sync (`client.sync(doc)`): a round now, or at the next
    /// connection when offline. Ignored in `realtimeSyncOff`, which exchanges nothing.
    public mutating func syncRequested(now: UInt64) -> [DocumentSyncAction] {
        guard !localOnly, mode.exchanges else { return [] }
        guard isConnected else {
            syncWanted = true
            return []
        }
        let actions = startRound(now: now)
        if case .polling(let interval) = mode { nextPoll = now + interval }
        return finish(actions)
    }

    /// Lifts a refusal (``parked``): the app made the writes acceptable (e.g. the owner
    /// granted write access) and asks for them to be sent again. Connected, a round
    /// starts at once and every unacknowledged update is resent.
    public mutating func unpark(now: UInt64) -> [DocumentSyncAction] {
        guard !localOnly, parked != nil else { return [] }
        parked = nil
        guard isConnected, mode.exchanges else { return [] }
        sentThrough = acknowledged
        return finish(startRound(now: now))
    }

    /// Time passed: the handshake budget and polling rounds.
    public mutating func tick(now: UInt64) -> [DocumentSyncAction] {
        guard !localOnly, isConnected else { return [] }
        var actions: [DocumentSyncAction] = []
        var roundDone = false
        if let due = deadline, now >= due, isBehind {
            actions.append(.emit(.syncError(timeoutError())))
            // Retry on our own: ask again and resend everything unacknowledged.
            deadline = now + handshakeBudget
            stepTwosAwaited = 0
            sentThrough = acknowledged
            actions += startRound(now: now)
            roundDone = true
        }
        if let due = nextPoll, now >= due, case .polling(let interval) = mode {
            nextPoll = now + interval
            if !roundDone { actions += startRound(now: now) }
        }
        actions += resyncIfDue(now: now, roundDone: roundDone)
        return finish(actions)
    }

    // MARK: Rounds

    private mutating func startModeOnConnection(now: UInt64) -> [DocumentSyncAction] {
        switch mode {
        case .realtime:
            scheduleFirstResync(now: now)
            return startRound(now: now)
        case .realtimePushOnly:
            return startRound(now: now)
        case .polling(let interval):
            nextPoll = now + interval
            return startRound(now: now)
        case .manual:
            guard syncWanted else { return [] }
            syncWanted = false
            return startRound(now: now)
        case .realtimeSyncOff:
            return []
        }
    }

    /// Our step 1 (when the mode pulls) and every unacknowledged update not yet sent.
    mutating func startRound(now: UInt64) -> [DocumentSyncAction] {
        roundStarted = true
        var actions: [DocumentSyncAction] = []
        if mode.pulls {
            actions.append(.sendStepOne)
            stepTwosAwaited += 1
        }
        return actions + sendUnsent() + settle(now: now)
    }

    /// Sends the unsent part of the outbox, consecutive updates merged into as few
    /// messages as fit (``OutboundUpdate/batched(_:document:limit:)``). An update larger
    /// than the server's frame limit parks the document instead: the server would drop it
    /// unread with a connection-wide error, it would never be acked, and every retry would
    /// resend it.
    private mutating func sendUnsent() -> [DocumentSyncAction] {
        guard parked == nil else { return [] }
        var actions: [DocumentSyncAction] = []
        let unsent = outbox.filter { $0.sequence > sentThrough }
        for update in OutboundUpdate.batched(unsent, document: id, limit: maxFrameBytes) {
            let size = update.multiplexedSize(document: id)
            if let limit = maxFrameBytes, size > limit {
                let error = AccordError(
                    WriteRefusal.messageTooLarge,
                    "update \(update.sequence) of document \(id) takes \(size) bytes; the server accepts \(limit)",
                    details: ["document": id.rawValue, "limit": String(limit), "sequence": String(update.sequence)])
                parked = error
                return actions + [.emit(.writeRejected(error))]
            }
            // The id is a valid DocumentID, the only thing encoding checks, so it cannot fail.
            guard let frame = try? AccordMessage.update(
                documentID: id.rawValue, sequence: update.sequence, bytes: update.bytes
            ).frame() else { continue }
            actions.append(.send(frame))
            sentThrough = update.sequence
        }
        return actions
    }

    /// After anything that may change whether we are behind: start the budget when we
    /// fall behind, announce `synced` when we catch up.
    mutating func settle(now: UInt64) -> [DocumentSyncAction] {
        if isBehind {
            isSynced = false
            if deadline == nil { deadline = now + handshakeBudget }
            return []
        }
        deadline = nil
        // A parked document has local changes the server refused: it is not in sync,
        // however quiet the connection is.
        guard roundStarted, !isSynced, parked == nil else { return [] }
        isSynced = true
        return [.emit(.synced)]
    }

    /// Appends a tick request when the earliest timer changed.
    mutating func finish(_ actions: [DocumentSyncAction]) -> [DocumentSyncAction] {
        let wake = [deadline, nextPoll, nextResync].compactMap { $0 }.min()
        guard wake != scheduled else { return actions }
        scheduled = wake
        guard let wake else { return actions }
        return actions + [.scheduleTick(at: wake)]
    }

    private mutating func resetConnectionState() {
        isConnected = false
        isSynced = false
        stepTwosAwaited = 0
        roundStarted = false
        deadline = nil
        nextPoll = nil
        nextResync = nil
        askedForMissing = false
        scheduled = nil
        maxFrameBytes = nil
        sentThrough = acknowledged
    }

    private func timeoutError() -> AccordError {
        AccordError(
            .networkTimeout, "the server did not answer the sync of document \(id) within \(handshakeBudget) ms",
            details: ["document": id.rawValue, "budget": String(handshakeBudget)])
    }
}
