import Dispatch
import Foundation
import AccordCRDT
import AccordNet
import AccordStore

/// The driver of the sync protocol: it owns the ``Session`` of every connection and the
/// ``Room`` of every open document, and carries out their actions on sockets and the
/// store. Everything runs on one serial queue, so sessions and rooms need no locks;
/// the network thread and the store only post to it. REST work on a document borrows
/// its room off the queue (a lease, `SyncHub+Lease.swift`): the queue then holds that
/// room's work until the room comes back, and serves every other document meanwhile.
final class SyncHub: @unchecked Sendable {
    struct Options: Sendable {
        var limits: Session.Limits
        var createDocumentsOnConnect: Bool
        var maxDocumentBytes: Int
        /// A room without connections is flushed and unloaded after this long.
        var roomIdleMilliseconds: UInt64
        /// Milliseconds since the epoch (awareness clocks are wall time in Yjs).
        var now: @Sendable () -> UInt64
        /// Open connections per user; more are closed with `TOO_MANY_CONNECTIONS`.
        var maxConnectionsPerUser = Int.max
        /// The per-user budget of partially received bytes (enforced by AccordNet),
        /// named in the `QUOTA_EXCEEDED` error.
        var maxPartialBytesPerUser = Int.max
        /// Set on a node of a cluster: the store is shared with other nodes, rooms
        /// follow its log, and access changes are announced to the others.
        var cluster: (any ClusterLink)?
        var clustered: Bool { cluster != nil }
    }

    struct Connection {
        let socket: WebSocketConnection
        var session: Session
        /// The last sync step 2 sent per document, to tell whether it still waits in
        /// the socket's queue (see `isAnsweringStepOne`).
        var stepTwos: [DocumentID: SendTicket] = [:]
    }

    struct LoadedRoom {
        let room: Room
        var idleSince: UInt64?
        /// In a cluster: the shared log position the room's document holds everything
        /// up to (see SyncHub+Cluster.swift).
        var through: UInt64?
        /// A catch-up read of this room's log is queued or under way: carried notices
        /// wait for it (one read serves every notice that arrived before it ran).
        var catchUpQueued = false
        /// Which load of the document this is (unique while the hub runs): with the
        /// room's ``Room/revision``, names one state of the document (the dashboard's
        /// content cache).
        var generation: UInt64 = 0
        /// The highest log position a notice named while a catch-up read was under way:
        /// past what the read brought, another read follows.
        var noticedThrough: UInt64 = 0
        /// When the oldest notice still waiting for a catch-up arrived (uptime
        /// nanoseconds), for `accord_cluster_notice_apply_milliseconds`.
        var noticeWaitingSince: UInt64?
        /// Notices that arrived ahead of an earlier one (by first position), held a
        /// moment for it instead of reading the log (SyncHub+Cluster.swift).
        var heldNotices = HeldNotices()
    }

    let queue = DispatchQueue(label: "accord.sync")
    /// Where a cluster node reads shared logs after other nodes' notices: off `queue`,
    /// so a read waiting behind the store's commit (which holds the storage for a
    /// PostgreSQL round trip and its WAL flush) never stalls every other room.
    let catchUpQueue = DispatchQueue(label: "accord.cluster.catch-up")
    let options: Options
    let directory: DocumentDirectory
    private let authenticate: @Sendable (HTTPRequest) throws(AccordError) -> SyncIdentity
    let metrics: ServerMetrics
    var connections: [ConnectionID: Connection] = [:]
    var rooms: [DocumentID: LoadedRoom] = [:]
    /// Rooms lent to REST work, with what waits for them (`SyncHub+Lease.swift`).
    var leases: [DocumentID: RoomLease] = [:]
    /// Lease bodies' writes to the store in flight; ``stop()`` waits for them and lets
    /// none start after it.
    let leaseWrites = WriteGate()
    /// Called on the REST worker's thread once it has a room, before its body runs.
    /// Tests block here to hold a lease as long as they need.
    var leaseStarted: (@Sendable (DocumentID) -> Void)?
    /// Rooms loaded so far: the next ``LoadedRoom/generation``.
    private var roomsLoaded: UInt64 = 0
    /// Every attached channel and its session counts (in memory only).
    var channelRegistry = ChannelRegistry()
    /// When this cluster node last announced all its channel counts (milliseconds).
    var channelsAnnouncedAt: UInt64 = 0
    /// Open, signed-in connections per user (``Options/maxConnectionsPerUser``).
    private var connectionsPerUser: [String: Int] = [:]
    /// The signed-in `/v1/sync` connections of each user: where directory events go
    /// (`SyncHub+DirectoryEvents.swift`). Stock clients on `/v1/sync/{id}` are never here.
    var eventConnections: [String: Set<ConnectionID>] = [:]
    private var storeSubscription: StoreSubscription?
    private var timer: (any DispatchSourceTimer)?
    var isStopped = false
    /// Told of every update appended to a room's document (document, bytes, time), on
    /// the queue; set before ``start()``. The dashboard's recent-updates list.
    var updateAppended: (@Sendable (DocumentID, Int, UInt64) -> Void)?
    /// Told when a signed-in connection closes (user, documents it had joined, time),
    /// on the queue; set before ``start()``. The dashboard's people seen recently.
    var userDisconnected: (@Sendable (String, Set<DocumentID>, UInt64) -> Void)?

    var documents: DocumentStore { directory.documents }

    init(
        directory: DocumentDirectory, options: Options, metrics: ServerMetrics,
        authenticate: @escaping @Sendable (HTTPRequest) throws(AccordError) -> SyncIdentity
    ) {
        self.directory = directory
        self.options = options
        self.metrics = metrics
        self.authenticate = authenticate
    }

    /// Subscribes to the store and starts the housekeeping timer (idle rooms, awareness).
    func start() {
        storeSubscription = documents.observeChanges { [weak self] change in
            guard let self, case .appended(let range) = change.kind else { return }
            // Always asynchronous: a flush may run inside an append on this very queue.
            queue.async { self.durable(change.id, through: range.upperBound) }
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1))
        timer.setEventHandler { [weak self] in self?.housekeeping() }
        timer.resume()
        self.timer = timer
    }

    /// Closes every connection, flushes the store and unloads every room. Waits for
    /// the queue, so call it off the queue.
    func stop() throws(AccordError) {
        // Before the queue: a write that began stores all of it, and the flush below covers it.
        leaseWrites.closeAndWait()
        let result: Result<Void, AccordError> = queue.sync {
            isStopped = true
            timer?.cancel()
            storeSubscription?.cancel()
            for id in connections.keys.sorted() {
                guard var connection = connections[id] else { continue }
                _ = connection.session.closed()
                connection.socket.close(code: 1001, reason: "server shutting down")
                connections[id] = nil
            }
            connectionsPerUser = [:]
            eventConnections = [:]
            // The other nodes stop counting this one's connections now, not at expiry.
            let counted = channelRegistry.localCounts
            if !counted.isEmpty {
                options.cluster?.publishChannelCounts(counted.map { ChannelCount(key: $0.key, sessions: 0) })
            }
            channelRegistry = ChannelRegistry()
            rooms = [:]
            endLeasesForStop()
            updateGauges()
            do throws(AccordError) {
                try documents.flush()
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    // MARK: Events from the network thread

    func handle(_ event: WebSocketServerEvent) {
        queue.async { [self] in
            guard !isStopped else {
                if case .opened(let socket) = event { socket.close(code: 1001, reason: "server shutting down") }
                return
            }
            switch event {
            case .opened(let socket): opened(socket)
            case .message(let socket, let bytes):
                metrics.received(bytes: bytes.count)
                withSession(socket.id) { session in session.received(bytes, now: options.now()) }
            case .messageTooLarge(let socket):
                withSession(socket.id) { session in session.tooLarge() }
            case .messageOverBudget(let socket):
                metrics.refused(.partialBytesPerUser)
                withSession(socket.id) { session in session.partialBytesRefused(limit: options.maxPartialBytesPerUser) }
            case .closed(let socket, _, _): closed(socket.id)
            }
        }
    }

    /// Someone changed who may access `id` (or deleted it) through this node: re-check
    /// every connection in its room now, and tell the other nodes of a cluster to.
    func accessChanged(_ id: DocumentID) {
        options.cluster?.announceAccessChanged(id)
        recheckAccess(id)
    }

    /// Re-checks every connection in the room of `id` against the access rows.
    func recheckAccess(_ id: DocumentID) {
        queue.async { [self] in whenFree(id) { [self] in recheckRoom(id) } }
    }

    private func recheckRoom(_ id: DocumentID) {
        guard let room = rooms[id]?.room else { return }
        for connectionID in room.connections {
            guard let user = connections[connectionID]?.session.user else { continue }
            let role: Role?
            do {
                role = try directory.access.role(of: user, on: id)
            } catch {
                role = nil
            }
            if let role {
                room.setCanWrite(connectionID, role.canWrite)
            } else {
                let deleted = (try? directory.documents.contains(id)) == false
                let error = deleted
                    ? AccordError(.documentDeleted, "document \(id) was deleted", details: ["document": id.rawValue])
                    : AccordError(
                        .docAccessDenied, "access to document \(id) was revoked", details: ["document": id.rawValue])
                withSession(connectionID) { session in session.accessRevoked(id, error) }
            }
        }
    }

    // MARK: Connections

    private func opened(_ socket: WebSocketConnection) {
        let endpoint: SyncEndpoint
        let dialect: SyncDialect
        do {
            guard let parsed = try SyncEndpoint(path: socket.request.path) else {
                socket.close(code: SyncCloseCode.notFound, reason: "not a sync path")
                return
            }
            endpoint = parsed
            dialect = try SyncDialect(endpoint: endpoint, parameter: socket.request.queryValue(SyncDialect.queryParameter))
        } catch {
            // Without a session the dialect may be unknown: only a client that asked for
            // Accord's messages gets the Accord error, every client the auth refusal.
            refuse(
                socket, endpoint: nil, accordMessages: socket.request.queryValue(SyncDialect.queryParameter) == "1", error,
                closeCode: SyncCloseCode.malformed)
            return
        }
        let authentication: Result<String, AccordError>
        var channelPattern: ChannelKeyPattern?
        do throws(AccordError) {
            let identity = try authenticate(socket.request)
            authentication = .success(identity.user)
            channelPattern = identity.channels
        } catch {
            authentication = .failure(error)
        }
        if case .success(let user) = authentication {
            // Checked before anything is sent or joined: the refused connection costs
            // one error frame.
            guard connectionsPerUser[user, default: 0] < options.maxConnectionsPerUser else {
                refuseConnection(socket, endpoint: endpoint, dialect: dialect, limit: options.maxConnectionsPerUser)
                return
            }
            connectionsPerUser[user, default: 0] += 1
            if endpoint == .multiplexed { eventConnections[user, default: []].insert(socket.id) }
        }
        connections[socket.id] = Connection(
            socket: socket,
            session: Session(endpoint: endpoint, dialect: dialect, limits: options.limits, now: options.now()))
        updateGauges()
        withSession(socket.id) { session in session.opened(user: authentication, channelPattern: channelPattern) }
    }

    private func refuseConnection(
        _ socket: WebSocketConnection, endpoint: SyncEndpoint, dialect: SyncDialect, limit: Int
    ) {
        metrics.refused(.connectionsPerUser)
        let error = AccordError(.tooManyConnections, "a user may have \(limit) sync connections open; close one first")
        refuse(socket, endpoint: endpoint, accordMessages: dialect == .accord, error, closeCode: SyncCloseCode.tooManyRequests)
    }

    /// Refuses a connection that has no session yet: an Accord `error` for a client
    /// that asked for Accord's messages, the y-protocols auth refusal (all a stock
    /// client understands) for the others, then the close with the code as reason.
    /// `endpoint` nil: the path did not parse, so the frame goes out unwrapped.
    private func refuse(
        _ socket: WebSocketConnection, endpoint: SyncEndpoint?, accordMessages: Bool, _ error: AccordError, closeCode: UInt16
    ) {
        metrics.error(error.code.rawValue)
        if accordMessages, let frame = try? AccordMessage.error(code: error.code.rawValue, message: error.message, documentID: nil).frame() {
            socket.send(endpoint?.encode(frame, document: nil) ?? frame.encode())
        } else {
            socket.send(ProtocolFrame.auth(.permissionDenied(reason: error.message)).encode())
        }
        socket.close(code: closeCode, reason: error.code.rawValue)
    }

    private func closed(_ id: ConnectionID) {
        if let session = connections[id]?.session, let user = session.user {
            userDisconnected?(user, session.documents, options.now())
        }
        if let user = connections[id]?.session.user {
            let remaining = connectionsPerUser[user, default: 1] - 1
            connectionsPerUser[user] = remaining > 0 ? remaining : nil
            eventConnections[user]?.remove(id)
            if eventConnections[user]?.isEmpty == true { eventConnections[user] = nil }
        }
        withSession(id) { session in session.closed() }
        connections[id] = nil
        updateGauges()
    }

    /// Runs one session event and carries out its actions (which may feed the session
    /// more events, such as a join's outcome).
    private func withSession(_ id: ConnectionID, _ event: (inout Session) -> [SessionAction]) {
        guard var connection = connections[id] else { return }
        let actions = event(&connection.session)
        connections[id] = connection
        perform(actions, connection: id)
    }

    private func perform(_ actions: [SessionAction], connection id: ConnectionID) {
        for action in actions {
            guard let connection = connections[id] else { return }
            switch action {
            case .send(let bytes):
                send(bytes, on: connection.socket)
            case .sendError(let bytes, let code):
                metrics.error(code.rawValue)
                if code == .tooManyRooms { metrics.refused(.roomsPerConnection) }
                send(bytes, on: connection.socket)
            case .countError(let code):
                metrics.error(code.rawValue)
            case .close(let code, let reason):
                connection.socket.close(code: code, reason: reason)
            case .join(let document, let frame):
                whenFree(document) { [self] in joinHeld(document, frame, connection: id) }
            case .deliver(let document, let frame):
                whenFree(document) { [self] in deliver(frame, to: document, from: id) }
            case .channel(let message):
                deliver(channelRegistry.handle(message, from: id))
                if let cluster = options.cluster { shareChannelChanges(after: message, with: cluster) }
            case .leave(let document):
                connections[id]?.stepTwos[document] = nil
                whenFree(document) { [self] in
                    guard let loaded = rooms[document] else { return }
                    perform(loaded.room.leave(id, now: options.now()), in: loaded.room)
                    if loaded.room.connections.isEmpty { rooms[document]?.idleSince = options.now() }
                }
            }
        }
    }

    /// A session's join, run when the room is free. A join that waited behind a lease
    /// may find an earlier one (for the same connection, held before it) already made
    /// the session a member: its frame is then simply delivered.
    private func joinHeld(_ document: DocumentID, _ frame: ProtocolFrame?, connection id: ConnectionID) {
        guard let session = connections[id]?.session else { return }
        let outcome = session.documents.contains(document)
            ? .joined(canWrite: rooms[document]?.room.canWrite(id) == true)
            : join(document, connection: id, creating: frame.flatMap(Self.createMessage))
        withSession(id) { session in session.joined(document, outcome: outcome, then: frame) }
    }

    /// A session's frame for a document it joined, run when the room is free.
    private func deliver(_ frame: ProtocolFrame, to document: DocumentID, from id: ConnectionID) {
        guard let connection = connections[id], let room = rooms[document]?.room else { return }
        if case .sync(.step1) = frame, let ticket = connection.stepTwos[document], connection.socket.isQueued(ticket) {
            // Our answer to its previous step 1 has not even left: it and the
            // updates queued behind it bring the client up to date, so another
            // copy of the document would only grow the queue (issue 14: a client
            // that never read made the server queue one per tiny step 1).
            return
        }
        perform(room.receive(frame, from: id, now: options.now()), in: room)
    }

    /// Sends each channel message to its recipients, encoded once for all of them
    /// (channels live on `/v1/sync` only, so every recipient frames it alike).
    func deliver(_ deliveries: [ChannelRegistry.Delivery]) {
        for delivery in deliveries {
            guard let frame = try? AccordMessage.channel(delivery.message).frame() else { continue }
            let bytes = SyncEndpoint.multiplexed.encode(frame, document: nil)
            for recipient in delivery.recipients {
                guard let socket = connections[recipient]?.socket else { continue }
                send(bytes, on: socket)
            }
        }
    }

    @discardableResult
    func send(_ bytes: [UInt8], on socket: WebSocketConnection) -> SendTicket {
        metrics.sent(bytes: bytes.count)
        return socket.send(bytes)
    }

    // MARK: Rooms

    /// Decides whether the connection's user may open `document`, creating it on first
    /// connect when allowed, loads its room and adds the connection.
    private func join(
        _ document: DocumentID, connection id: ConnectionID, creating entry: DirectoryMessage? = nil
    ) -> Session.JoinOutcome {
        guard let user = connections[id]?.session.user else {
            return .refused(AccordError(.unauthenticated, "the connection is not signed in"))
        }
        let role: Role
        do throws(AccordError) {
            role = try resolveRole(of: user, on: document, creating: entry)
        } catch {
            return .refused(error)
        }
        let room: Room
        do throws(AccordError) {
            room = try loadRoom(document)
        } catch {
            return .refused(AccordError(
                .documentUnavailable, "document \(document) could not be loaded: \(error.message)",
                details: ["document": document.rawValue, "cause": error.code.rawValue]))
        }
        rooms[document]?.idleSince = nil
        perform(room.join(id, user: user, canWrite: role.canWrite), in: room)
        return .joined(canWrite: role.canWrite)
    }

    private func resolveRole(
        of user: String, on document: DocumentID, creating entry: DirectoryMessage?
    ) throws(AccordError) -> Role {
        if try !documents.contains(document) {
            guard options.createDocumentsOnConnect else {
                throw AccordError(.documentNotFound, "document \(document) does not exist",
                                  details: ["document": document.rawValue])
            }
            do {
                try directory.createOnConnect(document, owner: user, entry: entry)
                publish(.created(document, owner: user))
                return .owner
            } catch where error.code == .documentExists && options.clustered {
                // Another node of the cluster created it since we looked: join it as
                // whoever its access row says we are.
                directory.access.forgetCached(document)
            }
        }
        guard let role = try directory.access.role(of: user, on: document) else {
            throw AccordError(.docAccessDenied, "no access to document \(document)", details: ["document": document.rawValue])
        }
        return role
    }

    /// The room of `document`, loading it from the store if needed. A failed load
    /// writes nothing and leaves no room behind.
    func loadRoom(_ document: DocumentID) throws(AccordError) -> Room {
        if let loaded = rooms[document] { return loaded.room }
        let doc: Doc
        var through: UInt64?
        if options.clustered {
            (doc, through) = try documents.loadShared(document)
        } else {
            doc = try documents.load(document)
        }
        let metadata = try documents.metadata(document)
        let room = Room(
            id: document, doc: doc, storedBytes: metadata.size, maxDocumentBytes: options.maxDocumentBytes,
            now: options.now())
        room.publishesAwareness = options.clustered
        roomsLoaded += 1
        rooms[document] = LoadedRoom(room: room, idleSince: nil, through: through, generation: roomsLoaded)
        updateGauges()
        return room
    }

    func perform(_ actions: [RoomAction], in room: Room) {
        for action in actions {
            switch action {
            case .send(let id, let frame):
                guard let connection = connections[id], let action = connection.session.frame(frame, document: room.id)
                else { continue }
                if case .sync(.step2) = frame, case .send(let bytes) = action {
                    connections[id]?.stepTwos[room.id] = send(bytes, on: connection.socket)
                } else {
                    perform([action], connection: id)
                }
            case .error(let id, let error):
                guard let connection = connections[id] else { continue }
                perform([connection.session.error(error, document: room.id)], connection: id)
            case .persist(let update, let from, let ack):
                do throws(AccordError) {
                    let sequence = try documents.append(update, to: room.id, isLocal: false)
                    room.persisted(storeSequence: sequence, ack: ack, now: options.now())
                    updateAppended?(room.id, update.count, options.now())
                } catch {
                    perform([.error(from, error)], in: room)
                }
            case .publishAwareness(let update):
                options.cluster?.publishAwareness(room.id, update)
            case .publishBroadcast(let topic, let payload, let sender):
                options.cluster?.publishBroadcast(room.id, topic: topic, payload: payload, sender: sender)
            case .ack(let id, let through):
                guard let connection = connections[id],
                      let frame = try? AccordMessage.ack(documentID: room.id.rawValue, through: through).frame(),
                      let send = connection.session.frame(frame, document: room.id)
                else { continue }
                perform([send], connection: id)
            }
        }
    }

    private func durable(_ document: DocumentID, through sequence: UInt64) {
        whenFree(document) { [self] in durableNow(document, through: sequence) }
    }

    private func durableNow(_ document: DocumentID, through sequence: UInt64) {
        guard let room = rooms[document]?.room else { return }
        let (actions, latencies) = room.durable(through: sequence, now: options.now())
        metrics.persisted(latencies: latencies)
        perform(actions, in: room)
    }

    /// Once a second: expire silent awareness entries, unload idle rooms.
    private func housekeeping() {
        let now = options.now()
        var unload: [DocumentID] = []
        if options.clustered { channelHousekeeping(now: now) }
        // A leased room is the REST body's until it comes back: its turn is the next tick.
        for (id, loaded) in rooms where !isLeased(id) {
            perform(loaded.room.expireAwareness(now: now), in: loaded.room)
            if let idleSince = loaded.idleSince, loaded.room.isIdle, now - min(now, idleSince) >= options.roomIdleMilliseconds {
                unload.append(id)
            }
        }
        guard !unload.isEmpty else { return }
        // Flush first: the room goes only once what it applied is durable.
        do {
            try documents.flush()
        } catch {
            return  // keep the rooms; the next tick retries
        }
        for id in unload { rooms[id] = nil }
        updateGauges()
    }

    private func updateGauges() {
        metrics.setGauges(connections: connections.count, rooms: rooms.count)
    }
}
