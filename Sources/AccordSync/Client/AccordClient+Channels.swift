public import AccordCRDT
import AccordStore

/// Channels: ephemeral rooms named by a key, with session counts and broadcasts and
/// no document (``Channel``). They share the client's one `/v1/sync` connection as
/// connection-wide Accord channel messages; nothing about them reaches the store.
extension AccordClient {
    // MARK: API

    /// Attaches `channel`: the server counts this client at its key (and every key
    /// above) for as long as the connection lives or until ``detachChannel(_:)``.
    /// `isRealtime` (the default) has the server push count changes and the channel's
    /// broadcasts; `false` opens no live stream, and the count is refreshed with
    /// ``syncChannel(_:)``. Attached channels are attached again on every reconnect.
    ///
    /// While connected it returns once the server answered (the count is then set);
    /// offline, or when no answer comes within the handshake budget, it returns with
    /// the channel attached, and the server's answer comes later.
    /// - Throws: `INVALID_ARGUMENT` when another client has the channel or this client
    ///   has another `Channel` at the same key; the server's refusal,
    ///   `CHANNEL_ACCESS_DENIED` (the token's channel pattern does not cover the key) or
    ///   `TOO_MANY_CHANNELS`, after which the channel is not attached.
    public func attachChannel(_ channel: Channel, isRealtime: Bool = true) async throws(AccordError) {
        if let existing = channelBook.attached[channel.key], existing.channel !== channel {
            throw AccordError(
                .invalidArgument, "another Channel object is attached at \(channel.key); detach it first",
                details: ["channel": channel.key.rawValue])
        }
        guard channel.attach(to: self, realtime: isRealtime) else {
            throw AccordError(
                .invalidArgument, "channel \(channel.key) is attached to another client", details: ["channel": channel.key.rawValue])
        }
        channelBook.attached[channel.key] = ChannelBook.Attached(channel: channel, realtime: isRealtime)
        guard isChannelConnectionReady else { return }
        let answer = await ask(.attach(key: channel.key, realtime: isRealtime), kind: .attach)
        if case .failure(let error) = answer {
            // The server refused: the channel is not attached (an attach elsewhere
            // since, with the same object, is not undone).
            if channelBook.attached[channel.key]?.channel === channel { forget(channel.key) }
            throw error
        }
    }

    /// Detaches `channel`: the server stops counting this client there, its count
    /// returns to 0 and its streams finish. Detaching a channel not attached does nothing.
    public func detachChannel(_ channel: Channel) {
        guard channelBook.attached[channel.key]?.channel === channel else { return }
        forget(channel.key)
        sendChannel(.detach(key: channel.key))
    }

    /// The attached channels' keys.
    public var attachedChannels: [ChannelKey] { channelBook.attached.keys.sorted() }

    /// Asks the server for the channel's session count now, sets it and returns it: how
    /// a channel attached with `isRealtime: false` learns it (a realtime one may too).
    /// - Throws: `CHANNEL_NOT_ATTACHED`; `UNAVAILABLE` while offline or when the
    ///   connection is lost first; `NETWORK_TIMEOUT` after the handshake budget.
    @discardableResult
    public func syncChannel(_ channel: Channel) async throws(AccordError) -> Int {
        guard channelBook.attached[channel.key]?.channel === channel else {
            throw AccordError(.channelNotAttached, "channel \(channel.key) is not attached to this client")
        }
        guard isChannelConnectionReady else {
            throw AccordError(.unavailable, "the client is offline; channel counts come from the server")
        }
        let count = try await ask(.sync(key: channel.key), kind: .sync).get()
        return Int(clamping: count)
    }

    /// Sends an ephemeral message to the other realtime members of an attached channel
    /// (exactly once each, never back to us). Not queued: offline nothing is sent and
    /// the result is false, as for document broadcasts.
    /// - Parameter payload: JSON text, delivered verbatim; at most
    ///   ``ChannelMessage/maxPayloadBytes`` bytes.
    /// - Throws: `CHANNEL_NOT_ATTACHED`; `INVALID_ARGUMENT` (payload not JSON or too
    ///   long, topic over 256 bytes); `MESSAGE_TOO_LARGE` over the server's frame limit.
    @discardableResult
    public func broadcast(_ key: ChannelKey, topic: String, payload: String) throws(AccordError) -> Bool {
        guard channelBook.attached[key] != nil else {
            throw AccordError(.channelNotAttached, "channel \(key) is not attached to this client")
        }
        let frame = try AccordMessage.channel(.broadcast(key: key, topic: topic, payload: payload, sender: nil)).frame()
        let bytes = try MultiplexedFrame(documentID: nil, frame: frame).encode()
        if let limit = connection?.hello?.maxFrameBytes, UInt64(bytes.count) > limit {
            throw AccordError(
                WriteRefusal.messageTooLarge, "a \(bytes.count)-byte message exceeds the server's \(limit)-byte frame limit",
                details: ["channel": key.rawValue, "limit": String(limit)])
        }
        guard let current = connection, current.hello != nil else { return false }
        current.socket.send(bytes)
        return true
    }

    // MARK: Hooks for the connection

    /// A connection said hello: the server knows none of our channels yet.
    func channelsConnected() {
        for key in channelBook.attached.keys.sorted() {
            guard let attached = channelBook.attached[key] else { continue }
            sendChannel(.attach(key: key, realtime: attached.realtime))
        }
    }

    func channelsConnectionLost() {
        channelBook.connectionLost(AccordError(.unavailable, "the connection was lost before the server answered"))
    }

    func receivedChannel(_ message: ChannelMessage) {
        switch message {
        case .count(let key, let sessions):
            channelBook.attached[key]?.channel.received(count: Int(clamping: sessions))
            channelBook.resolve(key, .success(sessions))
        case .broadcast(let key, let topic, let payload, let sender):
            guard let attached = channelBook.attached[key], attached.realtime else { return }
            attached.channel.received(BroadcastMessage(topic: topic, payload: payload, sender: sender))
        case .error(let key, let code, let text):
            let error = AccordError(ErrorCode(rawValue: code), text, details: ["channel": key.rawValue])
            if channelBook.waiters[key] != nil {
                channelBook.resolve(key, .failure(error))
            } else {
                // A refusal nobody waits for: a re-attach after reconnecting, or a
                // broadcast. A refused attach leaves the channel detached.
                if error.code == .channelAccessDenied || error.code == .tooManyChannels { forget(key) }
                bus.emit(.failure(nil, error))
            }
        case .attach, .detach, .sync:
            break  // client-to-server
        }
    }

    /// Ends every channel's streams (the client stopped).
    func finishChannels() {
        for attached in channelBook.attached.values { attached.channel.detached() }
        channelBook.attached = [:]
        channelBook.connectionLost(AccordError(.unavailable, "the client stopped"))
    }

    // MARK: Internals

    private var isChannelConnectionReady: Bool { connection?.hello != nil && network.isOnline }

    private func forget(_ key: ChannelKey) {
        channelBook.attached.removeValue(forKey: key)?.channel.detached()
    }

    /// Sends a request and waits for the server's count or refusal about its key, at
    /// most the handshake budget.
    private func ask(_ message: ChannelMessage, kind: ChannelBook.WaitKind) async -> Result<UInt64, AccordError> {
        let key = message.key
        let id = channelBook.newWaiterID()
        let deadline = now + handshakeBudget
        let expiry = timer(at: deadline) { client in
            client.channelBook.expire(key, waiter: id, error: AccordError(
                .networkTimeout, "the server did not answer about channel \(key) in time"))
        }
        defer { expiry.cancel() }
        return await withCheckedContinuation { continuation in
            channelBook.waiters[key, default: []].append(
                ChannelBook.Waiter(id: id, kind: kind, continuation: continuation))
            sendChannel(message)
        }
    }

    private func sendChannel(_ message: ChannelMessage) {
        guard let current = connection, current.hello != nil,
            let bytes = try? MultiplexedFrame(AccordMessage.channel(message)).encode()
        else { return }
        current.socket.send(bytes)
    }
}
