public import AccordCRDT

/// Channel requests on a session: the per-connection rules (token pattern, attached,
/// the channel limit) are checked here, so the registry only ever sees requests it can
/// carry out. Refusals are channel `error` messages naming the key; the connection and
/// its other channels carry on.
extension Session {
    /// The channel message a frame carries, nil for any other frame.
    static func channelMessage(in frame: ProtocolFrame) -> ChannelMessage? {
        // The subtype (one byte below 128) first: decoding every update message a
        // second time would copy its bytes.
        guard case .custom(AccordMessage.frameType, let body) = frame, let subtype = body.first,
            ChannelMessage.reservedSubtypes.contains(UInt64(subtype)),
            case .channel(let message)? = try? AccordMessage.decode(frame: frame)
        else { return nil }
        return message
    }

    mutating func receivedChannel(_ message: ChannelMessage) -> [SessionAction] {
        switch message {
        case .attach(let key, let realtime):
            if let channelPattern, !channelPattern.allows(key) {
                return [channelError(key, AccordError(
                    .channelAccessDenied, "the token's channel pattern '\(channelPattern)' does not cover channel \(key)"))]
            }
            if channels[key] == nil, channels.count >= limits.maxChannels {
                return [channelError(key, AccordError(
                    .tooManyChannels, "a connection may have \(limits.maxChannels) channels attached; detach one first",
                    details: ["limit": String(limits.maxChannels)]))]
            }
            channels[key] = realtime
            return [.channel(message)]
        case .detach(let key):
            return channels.removeValue(forKey: key) == nil ? [] : [.channel(message)]
        case .sync(let key):
            guard channels[key] != nil else { return [notAttached(key)] }
            return [.channel(message)]
        case .broadcast(let key, let topic, let payload, _):
            guard channels[key] != nil else { return [notAttached(key)] }
            // The sender is the token's user, never what the client wrote.
            return [.channel(.broadcast(key: key, topic: topic, payload: payload, sender: user))]
        case .count, .error:
            return []  // server-to-client messages
        }
    }

    /// Detaches every channel (the connection closed).
    mutating func releaseChannels() -> [SessionAction] {
        defer { channels = [:] }
        return channels.keys.sorted().map { .channel(.detach(key: $0)) }
    }

    private func notAttached(_ key: ChannelKey) -> SessionAction {
        channelError(key, AccordError(.channelNotAttached, "channel \(key) is not attached on this connection"))
    }

    /// A refusal about one channel. Sent only on `/v1/sync`, the one endpoint that
    /// serves channels, so every receiver reads Accord's messages.
    private func channelError(_ key: ChannelKey, _ error: AccordError) -> SessionAction {
        let message = AccordMessage.channel(.error(key: key, code: error.code.rawValue, message: error.message))
        let frame = (try? message.frame())
            ?? (try? AccordMessage.channel(.error(key: key, code: error.code.rawValue, message: "")).frame())
        return .sendError(frame.map { endpoint.encode($0, document: nil) } ?? [], error.code)
    }
}
