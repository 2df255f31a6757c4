public import AccordCRDT
public import AccordStore

/// Presence and broadcasts: each open document has a ``DocumentPresence`` (awareness
/// under the document's `Doc` client id); broadcasts are relayed by the server and
/// never stored. Both are ephemeral: nothing of them reaches the store.
extension AccordClient {
    // MARK: Presence API

    /// Merges `fields` into the top-level keys of our presence in a document (a value of
    /// `.undefined` removes its key). Sent at once while connected, and again on every
    /// reconnect; while offline it is only kept.
    /// - Throws: `DOCUMENT_NOT_OPEN`; `INVALID_ARGUMENT` for a value nested too deep
    ///   (``DocumentPresence/maxFieldDepth``); `MESSAGE_TOO_LARGE` when the state would
    ///   exceed the server's frame limit. Nothing changes when it throws.
    public func setPresence(_ id: DocumentID, _ fields: [String: AnyValue]) throws(AccordError) {
        let document = try presenceDocument(id)
        var presence = document.presence
        let actions = try presence.set(fields, now: now)
        try checkFrameLimit(actions, for: document)
        document.presence = presence
        perform(actions, for: document)
    }

    /// Our presence in a document (an object), or nil if none was set.
    /// - Throws: `DOCUMENT_NOT_OPEN`.
    public func myPresence(_ id: DocumentID) throws(AccordError) -> AnyValue? {
        try presenceDocument(id).presence.myPresence
    }

    /// The other clients present in a document, by awareness client id (their `Doc`
    /// client id for Accord and Yjs clients). Empty while offline.
    /// - Throws: `DOCUMENT_NOT_OPEN`.
    public func presences(_ id: DocumentID) throws(AccordError) -> [ClientID: AnyValue] {
        try presenceDocument(id).presence.others
    }

    /// A stream of a document's presence events that `filter` admits, from now on. Any
    /// number of streams may be open; each finishes when the client stops, and a stream
    /// asked for after that is already finished. The document need not be open yet.
    public func presenceEvents(_ id: DocumentID, filter: PresenceFilter = .all) -> AsyncStream<PresenceEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: PresenceEvent.self)
        guard !isStopped else {
            continuation.finish()
            return stream
        }
        let key = presenceSubscribers.add(document: id, filter: filter, continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removePresenceSubscriber(key) }
        }
        return stream
    }

    // MARK: Broadcast API

    /// Sends an ephemeral message to the document's other connections. Broadcasts are
    /// not queued: while offline (or for a local-only document) nothing is sent and the
    /// result is false, since a late cursor or "typing" signal is worse than none.
    /// - Parameter payload: JSON text, delivered verbatim.
    /// - Returns: whether the message was handed to the connection.
    /// - Throws: `DOCUMENT_NOT_OPEN`; `INVALID_ARGUMENT` for a payload that is not JSON
    ///   or a topic over ``AccordMessage/maxTopicBytes``; `MESSAGE_TOO_LARGE` above the
    ///   server's frame limit.
    @discardableResult
    public func broadcast(_ id: DocumentID, topic: String, payload: String) throws(AccordError) -> Bool {
        let document = try presenceDocument(id)
        let frame = try AccordMessage.broadcast(documentID: id.rawValue, topic: topic, payload: payload, sender: nil).frame()
        try checkFrameLimit([.send(frame)], for: document)
        guard document.machine.isConnected, connection?.hello != nil else { return false }
        send(frame, for: id)
        return true
    }

    /// A stream of the broadcasts other connections send to a document: those of
    /// `topic`, or all when nil. Same lifetime rules as ``presenceEvents(_:filter:)``.
    public func broadcasts(_ id: DocumentID, topic: String? = nil) -> AsyncStream<BroadcastMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: BroadcastMessage.self)
        guard !isStopped else {
            continuation.finish()
            return stream
        }
        let key = broadcastSubscribers.add(document: id, filter: topic, continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeBroadcastSubscriber(key) }
        }
        return stream
    }

    // MARK: Hooks for the connection and document lifecycle

    /// The connection became ready for the document (after its sync machine's round
    /// started, so the server has joined us to the room).
    func presenceReady(_ document: OpenDocument) {
        guard !document.machine.localOnly, document.machine.isConnected else { return }
        perform(document.presence.connectionReady(now: now), for: document)
    }

    func presenceConnectionLost(_ document: OpenDocument) {
        perform(document.presence.connectionLost(now: now), for: document)
    }

    /// The document is closing: say we leave while the connection can still carry it.
    func presenceClosing(_ document: OpenDocument) {
        perform(document.presence.leave(now: now), for: document)
        document.presenceTimer?.cancel()
        document.presenceTimer = nil
    }

    func receivedAwareness(_ bytes: [UInt8], for document: OpenDocument) {
        do throws(AccordError) {
            perform(try document.presence.received(bytes, now: now), for: document)
        } catch {
            bus.emit(.failure(document.id, error))
        }
    }

    func receivedBroadcast(topic: String, payload: String, sender: String?, for document: OpenDocument) {
        let message = BroadcastMessage(topic: topic, payload: payload, sender: sender)
        bus.emit(.broadcast(document.id, message))
        broadcastSubscribers.yield(message, document: document.id) { topic in topic == nil || topic == message.topic }
    }

    /// Ends every presence and broadcast stream (the client stopped or is released).
    func finishSubscriptions() {
        presenceSubscribers.finishAll()
        broadcastSubscribers.finishAll()
    }

    // MARK: Performing

    private func perform(_ actions: [PresenceAction], for document: OpenDocument) {
        for action in actions {
            switch action {
            case .send(let frame):
                send(frame, for: document.id)
            case .emit(let event):
                bus.emit(.presence(document.id, event))
                presenceSubscribers.yield(event, document: document.id) { $0.admits(event) }
            }
        }
        schedulePresenceTick(document)
    }

    private func schedulePresenceTick(_ document: OpenDocument) {
        document.presenceTimer?.cancel()
        document.presenceTimer = nil
        guard let deadline = document.presence.nextDeadline else { return }
        let id = document.id
        document.presenceTimer = timer(at: deadline) { client in client.presenceTick(id) }
    }

    private func presenceTick(_ id: DocumentID) {
        guard let document = documents[id] else { return }
        document.presenceTimer = nil
        perform(document.presence.tick(now: now), for: document)
    }

    private func presenceDocument(_ id: DocumentID) throws(AccordError) -> OpenDocument {
        guard let document = documents[id] else {
            throw AccordError(.documentNotOpen, "document \(id) is not open in this client", details: ["document": id.rawValue])
        }
        return document
    }

    /// Refuses frames the server would drop unread (connection-wide `MESSAGE_TOO_LARGE`).
    /// The limit is known once a connection said hello; before that nothing is checked.
    private func checkFrameLimit(_ actions: [PresenceAction], for document: OpenDocument) throws(AccordError) {
        guard let limit = document.machine.maxFrameBytes else { return }
        for case .send(let frame) in actions {
            let size = try MultiplexedFrame(documentID: document.id.rawValue, frame: frame).encode().count
            if UInt64(size) > limit {
                throw AccordError(
                    WriteRefusal.messageTooLarge, "a \(size)-byte message exceeds the server's \(limit)-byte frame limit",
                    details: ["document": document.id.rawValue, "limit": String(limit)])
            }
        }
    }

    private func removePresenceSubscriber(_ key: UInt64) { presenceSubscribers.remove(key) }
    private func removeBroadcastSubscriber(_ key: UInt64) { broadcastSubscribers.remove(key) }
}
