public import AccordCRDT
public import AccordStore

/// One open document on the server: its `Doc`, the connections in it, their awareness
/// entries and the acks that wait for the store. A pure state machine: events in
/// (``join(_:user:canWrite:)``, ``receive(_:from:now:)``, ``leave(_:now:)``,
/// ``durable(through:now:)``), ``RoomAction``s out. The driver (``SyncHub``) owns the
/// sockets and the store, and calls a room from one serial queue only.
public final class Room {
    public let id: DocumentID
    public let doc: Doc
    /// The server's copy of every awareness entry in the room, and who owns each id
    /// (``RoomAwareness``). The server never sets a state of its own.
    private var presence: RoomAwareness
    public var awareness: Awareness { presence.awareness }
    /// An estimate of the stored size (snapshot + log bytes at load, plus every update
    /// appended since), compared with ``maxDocumentBytes``.
    public private(set) var documentBytes: Int
    public let maxDocumentBytes: Int

    struct Member {
        var user: String
        var canWrite: Bool
        /// The connection's first step 1 was answered (see ``receive(_:from:now:)``).
        var askedBefore = false
    }

    private var members: [ConnectionID: Member] = [:]
    /// Join order, so fan-out order is deterministic.
    private var order: [ConnectionID] = []
    private(set) var acks = AckTracker()
    /// The update of the transaction being applied, as `Doc.onUpdate` reported it.
    private var integrated: [UInt8]?
    /// The whole document as one update, our answer to a step 1 from a client that has
    /// nothing, kept until the document changes: clients opening a large document
    /// together (readers arriving at once, everyone reconnecting after a restart) cost
    /// the server one encoding between them, not one each on the hub's only queue.
    private var wholeDocument: [UInt8]?
    private var updateSubscription: Subscription?
    /// Changes of the document since the room was made, whoever made them (members,
    /// server edits, other nodes): equal revisions of one room are the same content.
    public private(set) var revision: UInt64 = 0

    /// On a node of a cluster: awareness changes accepted here also come back as
    /// ``RoomAction/publishAwareness(_:)``, and broadcasts as
    /// ``RoomAction/publishBroadcast(topic:payload:sender:)``, for the other nodes.
    public var publishesAwareness = false

    /// The origin of updates the server applies, so observers can tell them apart.
    public static let origin = Origin("accord.server")

    public init(id: DocumentID, doc: Doc, storedBytes: Int, maxDocumentBytes: Int, now: UInt64) {
        self.id = id
        self.doc = doc
        self.documentBytes = storedBytes
        self.maxDocumentBytes = maxDocumentBytes
        // What clients send may not name client ids JavaScript peers cannot read (they
        // would silently lose those edits); set after the store loaded the document, so
        // content stored before the rule stays readable.
        doc.strictClientIDs = true
        self.presence = RoomAwareness(now: now)
        updateSubscription = doc.onUpdate { [unowned self] update, _ in
            integrated = update
            wholeDocument = nil
            revision &+= 1
        }
    }

    deinit { updateSubscription?.cancel() }

    public var connections: [ConnectionID] { order }
    public func isMember(_ connection: ConnectionID) -> Bool { members[connection] != nil }
    public func canWrite(_ connection: ConnectionID) -> Bool { members[connection]?.canWrite == true }
    /// No connection and nothing waiting for the store: the room may be unloaded.
    public var isIdle: Bool { members.isEmpty && acks.isEmpty }

    // MARK: Membership

    /// Adds a connection and opens the y-protocols exchange: the server's sync step 1,
    /// then the awareness states present, as y-websocket servers do.
    public func join(_ connection: ConnectionID, user: String, canWrite: Bool) -> [RoomAction] {
        if members[connection] == nil { order.append(connection) }
        members[connection] = Member(user: user, canWrite: canWrite)
        var actions: [RoomAction] = [.send(connection, .sync(.step1(stateVector: doc.encodeStateVector())))]
        if !awareness.states.isEmpty {
            actions.append(.send(connection, .awareness(awareness.encodeAllStates())))
        }
        return actions
    }

    /// A changed role takes effect on the next message.
    public func setCanWrite(_ connection: ConnectionID, _ canWrite: Bool) {
        members[connection]?.canWrite = canWrite
    }

    /// Removes a connection; its awareness entries are removed for everyone else, and
    /// their client ids are free again.
    public func leave(_ connection: ConnectionID, now: UInt64) -> [RoomAction] {
        guard members.removeValue(forKey: connection) != nil else { return [] }
        order.removeAll { $0 == connection }
        acks.drop(connection)
        guard let update = presence.removeEntries(of: connection, now: now) else { return [] }
        return order.map { .send($0, .awareness(update)) } + (publishesAwareness ? [.publishAwareness(update)] : [])
    }

    /// Applies awareness entries another node of a cluster accepted from its clients
    /// and relays what changed to every member here. Entries a connection of this node
    /// owns, and the server's own id, are left alone.
    public func applyRemoteAwareness(_ bytes: [UInt8], now: UInt64) -> [RoomAction] {
        guard let update = try? AwarenessUpdate.decode(bytes),
            let relayed = presence.receiveRemote(update, now: now)
        else { return [] }
        return order.map { .send($0, .awareness(relayed)) }
    }

    /// The connection that owns awareness client id `client` (whose state it set).
    func awarenessOwner(of client: ClientID) -> ConnectionID? { presence.owner(of: client) }

    // MARK: Messages

    /// One frame from a member. Frames from non-members are ignored (the driver joins
    /// first). `now` is in milliseconds.
    public func receive(_ frame: ProtocolFrame, from connection: ConnectionID, now: UInt64) -> [RoomAction] {
        guard let member = members[connection] else { return [] }
        switch frame {
        case .sync(.step1(let stateVector)):
            do {
                try Self.refuseUnsafeClients(in: stateVector)
                let missing = try answer(to: stateVector)
                var actions: [RoomAction] = [.send(connection, .sync(.step2(update: missing)))]
                // A later step 1 (a client's periodic resync, or its round for a missed
                // update) also gets ours, so the client sends back what we lack: an
                // update of its that we never received (dropped by the rate limit)
                // may be covered by a cumulative ack, and only our state vector and
                // its delete set show the gap. The first needs none: join sent ours.
                if member.askedBefore {
                    actions.append(.send(connection, .sync(.step1(stateVector: doc.encodeStateVector()))))
                } else {
                    members[connection]?.askedBefore = true
                }
                return actions
            } catch {
                return [.error(connection, error.asMalformedMessage())]
            }
        case .sync(.step2(let update)):
            return write(update, from: connection, member: member, ack: nil)
        case .sync(.update(let update)):
            return write(update, from: connection, member: member, ack: nil)
        case .awareness(let bytes):
            return receiveAwareness(bytes, from: connection, now: now)
        case .queryAwareness:
            return [.send(connection, .awareness(presence.awareness.encodeAllStates()))]
        case .auth:
            return []  // only servers send auth messages
        case .custom(AccordMessage.frameType, _):
            return receiveAccordMessage(frame, from: connection, member: member)
        case .custom:
            return []  // other extensions are not ours to interpret
        }
    }

    /// A state vector naming a client id above 2^53 − 1 describes a replica JavaScript
    /// peers cannot hold, so it is refused like one that does not decode.
    private static func refuseUnsafeClients(in stateVector: [UInt8]) throws(AccordError) {
        if let client = try StateVector.decode(stateVector).firstUnsafeClient {
            throw AccordError(
                .malformedMessage, "the state vector names client id \(client), above 2^53 - 1 (\(ID.maxSafeClient))")
        }
    }

    private func receiveAccordMessage(
        _ frame: ProtocolFrame, from connection: ConnectionID, member: Member
    ) -> [RoomAction] {
        let message: AccordMessage
        do {
            message = try AccordMessage.decode(frame: frame)
        } catch {
            return [.error(connection, error)]
        }
        if let named = message.documentID, named != id.rawValue {
            return [.error(connection, AccordError(
                .malformedMessage, "message names document \(named) on the connection of \(id)",
                details: ["document": id.rawValue]))]
        }
        switch message {
        case .update(_, let sequence, let bytes):
            let ack = PendingAck(connection: connection, sequence: sequence)
            return write(bytes, from: connection, member: member, ack: ack)
        case .broadcast(_, let topic, let payload, _):
            return relayBroadcast(topic: topic, payload: payload, from: connection, sender: member.user)
        case .hello, .ack, .error, .leave, .directory, .channel:
            // Server-to-client messages, a client's report, or a leave (the session
            // handles it before the room sees it): nothing to do.
            return []
        }
    }

    /// What a client holding `stateVector` lacks. An empty state vector (one varint:
    /// no clients) gets the cached whole document.
    private func answer(to stateVector: [UInt8]) throws(AccordError) -> [UInt8] {
        guard stateVector == [0] else { return try doc.encodeStateAsUpdate(from: stateVector) }
        if let wholeDocument { return wholeDocument }
        let encoded = try doc.encodeStateAsUpdate(from: stateVector)
        wholeDocument = encoded
        return encoded
    }

    /// The whole document as one update, from the same cache as the answers to empty step 1s.
    func wholeState() throws(AccordError) -> [UInt8] { try answer(to: [0]) }

    // MARK: Writes

    /// Applies, then persists and fans out, one update from a member. A refused update
    /// (role, size, malformed) leaves the document exactly as it was.
    private func write(
        _ update: [UInt8], from connection: ConnectionID, member: Member, ack: PendingAck?
    ) -> [RoomAction] {
        // Every stock client answers our step 1 with its state, usually empty: nothing
        // to apply, store or refuse (a reader's empty step 2 is not worth an error).
        if ack == nil, isEmptyUpdate(update) { return [] }
        guard member.canWrite else {
            // Every client answers our step 1, and its step 2 carries its whole delete
            // set: from a reader that brings nothing new it writes nothing, so it is no
            // refusal (which would park the reader's document).
            if ack == nil, (try? doc.containsUpdate(update)) == true { return [] }
            return [.error(connection, AccordError(
                .permissionDenied, "read-only access to document \(id)", details: ["document": id.rawValue]))]
        }
        guard documentBytes + update.count <= maxDocumentBytes else {
            return [.error(connection, AccordError(
                .documentTooLarge,
                "document \(id) would exceed \(maxDocumentBytes) bytes; the update was refused",
                details: ["document": id.rawValue, "limit": String(maxDocumentBytes)]))]
        }
        integrated = nil
        do {
            try doc.applyUpdate(update, origin: Self.origin)
        } catch {
            return [.error(connection, error)]
        }
        // Nothing new and nothing waiting for a predecessor (a duplicate): storing it
        // again would only grow the log. Acked updates are always stored, so an ack
        // never overtakes the earlier updates of the same connection.
        if integrated == nil, ack == nil, !doc.hasPendingUpdates { return [] }
        documentBytes += update.count
        // The received bytes are what is stored (they include structs still pending, so
        // a restart loses nothing); the others get what the transaction integrated.
        var actions: [RoomAction] = [.persist(update: update, from: connection, ack: ack)]
        if let integrated {
            for other in order where other != connection {
                actions.append(.send(other, .sync(.update(integrated))))
            }
        }
        integrated = nil
        return actions
    }

    /// An edit the server makes itself (records written over REST): `body` runs in one
    /// transaction, and the update it made comes back with the frames that send it to
    /// every member. The driver stores it durably before carrying them out. Nil when
    /// the edit changed nothing. A document already at its size limit is refused
    /// (`DOCUMENT_TOO_LARGE`) before `body` runs, since an applied edit cannot be undone.
    public func serverEdit(
        _ body: (Doc) throws(AccordError) -> Void
    ) throws(AccordError) -> (update: [UInt8], actions: [RoomAction])? {
        guard documentBytes < maxDocumentBytes else {
            throw AccordError(
                .documentTooLarge, "document \(id) is at its limit of \(maxDocumentBytes) bytes",
                details: ["document": id.rawValue, "limit": String(maxDocumentBytes)])
        }
        integrated = nil
        defer { integrated = nil }
        do {
            try doc.transact(origin: Self.origin) { try body(doc) }
        } catch let error as AccordError {
            throw error
        } catch {
            throw AccordError(.internalError, "server edit failed: \(error)")
        }
        guard let update = integrated else { return nil }
        documentBytes += update.count
        return (update, order.map { .send($0, .sync(.update(update))) })
    }

    /// Applies an update the server was handed (an import merging into this document):
    /// the received bytes come back for the store, with the frames that send what it
    /// integrated to every member. Nil when it brought nothing new.
    /// - Throws: `MALFORMED_UPDATE` (the document is unchanged), `DOCUMENT_TOO_LARGE`.
    public func serverApply(_ update: [UInt8]) throws(AccordError) -> (update: [UInt8], actions: [RoomAction])? {
        guard documentBytes + update.count <= maxDocumentBytes else {
            throw AccordError(
                .documentTooLarge, "document \(id) would exceed \(maxDocumentBytes) bytes",
                details: ["document": id.rawValue, "limit": String(maxDocumentBytes)])
        }
        integrated = nil
        defer { integrated = nil }
        try doc.applyUpdate(update, origin: Self.origin)
        guard integrated != nil || doc.hasPendingUpdates else { return nil }
        documentBytes += update.count
        let relayed = integrated.map { integrated in order.map { RoomAction.send($0, .sync(.update(integrated))) } } ?? []
        return (update, relayed)
    }

    /// Applies an update another node of a cluster stored (read back from the shared
    /// log): nothing to persist or refuse, since it is durable already; what it
    /// integrated goes to every member. One this room already holds sends nothing.
    public func applyRemote(_ update: [UInt8]) throws(AccordError) -> [RoomAction] {
        integrated = nil
        defer { integrated = nil }
        try doc.applyUpdate(update, origin: Self.origin)
        guard let integrated else { return [] }
        documentBytes += update.count
        return order.map { .send($0, .sync(.update(integrated))) }
    }

    /// Records that the driver appended an update under `storeSequence`.
    public func persisted(storeSequence: UInt64, ack: PendingAck?, now: UInt64) {
        acks.record(storeSequence: storeSequence, ack: ack, now: now)
    }

    /// The store made everything through `storeSequence` durable: ack the senders.
    /// Returns the acks to send and each released append's latency in milliseconds.
    public func durable(through storeSequence: UInt64, now: UInt64) -> (actions: [RoomAction], latencies: [UInt64]) {
        let released = acks.release(through: storeSequence, now: now)
        let actions = released.acks.compactMap { ack -> RoomAction? in
            members[ack.connection] == nil ? nil : .ack(ack.connection, through: ack.sequence)
        }
        return (actions, released.latencies)
    }

    // MARK: Ephemeral

    private func relayBroadcast(
        topic: String, payload: String, from connection: ConnectionID, sender: String
    ) -> [RoomAction] {
        let frame: ProtocolFrame
        do {
            frame = try AccordMessage.broadcast(documentID: id.rawValue, topic: topic, payload: payload, sender: sender)
                .frame()
        } catch {
            return [.error(connection, error)]
        }
        let relayed: [RoomAction] = order.filter { $0 != connection }.map { .send($0, frame) }
        return publishesAwareness ? relayed + [.publishBroadcast(topic: topic, payload: payload, sender: sender)] : relayed
    }

    /// Relays a broadcast a member of this document sent through another node of a
    /// cluster to every member here.
    public func applyRemoteBroadcast(topic: String, payload: String, sender: String) -> [RoomAction] {
        guard let frame = try? AccordMessage.broadcast(documentID: id.rawValue, topic: topic, payload: payload, sender: sender)
            .frame()
        else { return [] }
        return order.map { .send($0, frame) }
    }

    /// Applies the entries this connection may change (``RoomAwareness``) and relays
    /// what changed to the other members. A takeover of another connection's id is
    /// refused with `AWARENESS_CLIENT_TAKEN` (which only Accord clients receive); the
    /// rest of the update still applies. Echoes are dropped silently.
    private func receiveAwareness(_ bytes: [UInt8], from connection: ConnectionID, now: UInt64) -> [RoomAction] {
        let update: AwarenessUpdate
        do {
            update = try AwarenessUpdate.decode(bytes)
        } catch {
            return [.error(connection, error.asMalformedMessage())]
        }
        let receipt = presence.receive(update, from: connection, now: now)
        var actions: [RoomAction] = []
        if !receipt.refused.isEmpty {
            actions.append(.error(connection, AccordError(
                .awarenessClientTaken, "awareness client ids \(receipt.refused) belong to another connection",
                details: ["document": id.rawValue, "clients": receipt.refused.map(String.init).joined(separator: ",")])))
        }
        if let answer = receipt.answer { actions.append(.send(connection, .awareness(answer))) }
        for other in order {
            if let nudge = receipt.nudges[other] { actions.append(.send(other, .awareness(nudge))) }
        }
        if let relayed = receipt.relay {
            for other in order where other != connection {
                actions.append(.send(other, .awareness(relayed)))
            }
            if publishesAwareness { actions.append(.publishAwareness(relayed)) }
        }
        return actions
    }

    /// Removes entries not renewed for ``Awareness/outdatedTimeout`` (a client that
    /// vanished without a removal) and tells every member, as y-websocket servers do.
    public func expireAwareness(now: UInt64) -> [RoomAction] {
        guard let update = presence.expire(now: now) else { return [] }
        return order.map { .send($0, .awareness(update)) }
    }
}
