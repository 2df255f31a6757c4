/// Accord messages about channels: ephemeral rooms named by a ``ChannelKey``, with no
/// document, nothing stored, and a session count (distinct connections at the key or
/// under it). Subtypes 30–39 of outer type 100 (``AccordMessage/channel(_:)``); on
/// `/v1/sync` they are connection-wide frames (envelope `vs("")`), since a channel is
/// not a document. Layouts in `docs/protocol.md`.
public enum ChannelMessage: Hashable, Sendable {
    /// Client → server: count this connection at `key`. `realtime`: also push count
    /// changes and the channel's broadcasts to it; otherwise it asks with ``sync(key:)``.
    /// Answered with ``count(key:sessions:)`` or ``error(key:code:message:)``.
    case attach(key: ChannelKey, realtime: Bool)
    /// Client → server: stop counting this connection at `key`. Detaching a channel
    /// not attached does nothing.
    case detach(key: ChannelKey)
    /// Client → server: answer with the current ``count(key:sessions:)``.
    case sync(key: ChannelKey)
    /// Server → client: distinct connections at `key` or under it. Sent in answer to
    /// attach and sync, and to realtime members whenever it changes.
    case count(key: ChannelKey, sessions: UInt64)
    /// Relayed to the channel's other realtime members, never stored. `payload` is
    /// JSON text kept verbatim; `sender` is set by the server (the user id).
    case broadcast(key: ChannelKey, topic: String, payload: String, sender: String?)
    /// Server → client: a refused attach, sync or broadcast on `key`.
    case error(key: ChannelKey, code: String, message: String)

    /// The subtype numbers, inside ``AccordMessage``'s `vu(subtype)`.
    enum Subtype: UInt64 {
        case attach = 30, detach = 31, sync = 32, count = 33, broadcast = 34, error = 35
    }

    /// Subtypes reserved for channels; ones not listed in ``Subtype`` are refused.
    public static let reservedSubtypes: ClosedRange<UInt64> = 30...39

    /// A broadcast's payload is at most this many bytes of JSON. Bounded separately from
    /// the frame size because one broadcast is copied to every member of the channel.
    public static let maxPayloadBytes = 64 * 1024

    public var key: ChannelKey {
        switch self {
        case .attach(let key, _), .detach(let key), .sync(let key), .count(let key, _), .broadcast(let key, _, _, _),
             .error(let key, _, _):
            key
        }
    }

    var subtype: Subtype {
        switch self {
        case .attach: .attach
        case .detach: .detach
        case .sync: .sync
        case .count: .count
        case .broadcast: .broadcast
        case .error: .error
        }
    }

    /// The fields after `vu(subtype)`.
    func write(to w: inout ByteWriter) {
        w.writeVarString(key.rawValue)
        switch self {
        case .attach(_, let realtime):
            w.writeVarUInt(realtime ? UInt64(1) : UInt64(0))
        case .detach, .sync:
            break
        case .count(_, let sessions):
            w.writeVarUInt(sessions)
        case .broadcast(_, let topic, let payload, let sender):
            w.writeVarString(topic)
            w.writeVarString(payload)
            AccordMessage.writeOptional(sender, to: &w)
        case .error(_, let code, let message):
            w.writeVarString(code)
            w.writeVarString(message)
        }
    }

    /// Reads the fields of `subtype` (in ``reservedSubtypes``); `start` is the offset of
    /// the subtype, for the error of an unknown one.
    static func read(subtype raw: UInt64, at start: Int, from r: inout ByteReader) throws(AccordError) -> ChannelMessage {
        guard let subtype = Subtype(rawValue: raw) else {
            throw AccordError(.malformedMessage, "unknown Accord message subtype \(raw)", details: ["offset": String(start)])
        }
        let key = try ChannelKey(validating: try r.readVarString())
        switch subtype {
        case .attach:
            let flagStart = r.position
            switch try r.readVarUInt() {
            case 0: return .attach(key: key, realtime: false)
            case 1: return .attach(key: key, realtime: true)
            case let other:
                throw AccordError(.malformedMessage, "channel attach mode \(other) is neither 0 nor 1",
                                  details: ["offset": String(flagStart)])
            }
        case .detach:
            return .detach(key: key)
        case .sync:
            return .sync(key: key)
        case .count:
            return .count(key: key, sessions: try r.readVarUInt())
        case .broadcast:
            return .broadcast(key: key, topic: try r.readVarString(), payload: try r.readVarString(),
                              sender: try AccordMessage.readOptional(from: &r))
        case .error:
            return .error(key: key, code: try r.readVarString(), message: try r.readVarString())
        }
    }

    /// The field rules, as ``AccordMessage``'s (`INVALID_ARGUMENT`; decoding relabels).
    /// The key was checked when it was made.
    func validate() throws(AccordError) {
        switch self {
        case .attach, .detach, .sync, .count:
            break
        case .broadcast(_, let topic, let payload, let sender):
            try AccordMessage.limit(topic, "broadcast topic", max: AccordMessage.maxTopicBytes)
            try AccordMessage.limit(payload, "channel broadcast payload", max: Self.maxPayloadBytes)
            if let sender { try AccordMessage.limit(sender, "broadcast sender", max: AccordMessage.maxSenderBytes) }
            try AccordMessage.validateJSON(payload)
        case .error(_, let code, _):
            guard !code.isEmpty else { throw AccordError(.invalidArgument, "an error code may not be empty") }
            try AccordMessage.limit(code, "error code", max: AccordMessage.maxCodeBytes)
        }
    }
}
