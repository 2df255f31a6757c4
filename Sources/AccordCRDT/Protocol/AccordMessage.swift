/// Accord's own messages, sent as y-websocket frames of outer type ``frameType`` (100):
/// `vu(100) · vu(subtype) · fields` (layout in `docs/protocol.md`).
///
/// Why 100: y-websocket's `messageHandlers` covers 0–3 and its client logs and ignores
/// any other type, so stock clients sharing a room are undisturbed. 100 leaves room for
/// future y-protocols types, and is below 128 so the type is still one byte.
///
/// Acknowledgement: a client sends its local changes as ``update(documentID:sequence:bytes:)``
/// rather than a sync update (which has no name to ack). `sequence` is the client's own
/// counter for that document, increasing by at least one per update. Once the server has
/// stored an update durably it answers ``ack(documentID:through:)`` with that sequence;
/// acks are cumulative, so every update up to and including `through` is stored.
public enum AccordMessage: Hashable, Sendable {
    /// Server → client, first on a connection: limits the client must respect.
    case hello(serverVersion: String, maxFrameBytes: UInt64, heartbeatSeconds: UInt64)
    /// Client → server: a Yjs v1 update the client wants acknowledged.
    case update(documentID: String, sequence: UInt64, bytes: [UInt8])
    /// Server → client: updates through this sequence number are durably stored.
    case ack(documentID: String, through: UInt64)
    /// Either way: a coded failure. `documentID` is nil when the whole connection is
    /// concerned; otherwise only that document is affected.
    case error(code: String, message: String, documentID: String?)
    /// Relayed to the document's other connections, never stored. `payload` is JSON
    /// text, kept verbatim so relays forward it without re-serialising; `sender` is set
    /// by the server, so clients cannot impersonate each other.
    case broadcast(documentID: String, topic: String, payload: String, sender: String?)
    /// Client → server: the client closed the document; stop sending it. Sending any
    /// frame about it later joins it again.
    case leave(documentID: String)
    /// Subtypes 20–29: the directory's events and a device's create (``DirectoryMessage``).
    case directory(DirectoryMessage)
    /// A channel message (subtypes 30–39): about an ephemeral room, never a document,
    /// so always connection-wide on `/v1/sync`.
    case channel(ChannelMessage)

    public static let frameType: UInt64 = 100

    /// Byte limits for the short identifying strings; long free text (`message`,
    /// `payload`, update bytes) is bounded only by the frame size.
    public static let maxServerVersionBytes = 256
    public static let maxCodeBytes = 64
    public static let maxTopicBytes = 256
    public static let maxSenderBytes = 256

    enum Subtype: UInt64 {
        case hello = 0, update = 1, ack = 2, error = 3, broadcast = 4, leave = 5
    }

    /// The subtype number written after the outer type; nil for ``directory(_:)``,
    /// whose ``DirectoryMessage`` writes its own.
    var subtypeNumber: UInt64? {
        switch self {
        case .channel(let message): message.subtype.rawValue
        case .directory: nil
        case .hello: Subtype.hello.rawValue
        case .update: Subtype.update.rawValue
        case .ack: Subtype.ack.rawValue
        case .error: Subtype.error.rawValue
        case .broadcast: Subtype.broadcast.rawValue
        case .leave: Subtype.leave.rawValue
        }
    }

    /// The document the message is about, or nil for connection-wide messages.
    public var documentID: String? {
        switch self {
        case .hello, .channel: nil
        case .update(let id, _, _), .ack(let id, _), .broadcast(let id, _, _, _), .leave(let id): id
        case .error(_, _, let id): id
        case .directory(let message): message.envelopeDocumentID
        }
    }

    /// The frame to send. Throws ``ErrorCode/invalidArgument`` for values a peer would
    /// refuse (bad document id, over-long field, payload that is not JSON), so a bad
    /// message fails where it is made rather than at the far end.
    public func frame() throws(AccordError) -> ProtocolFrame {
        try validate()
        var w = ByteWriter()
        if let subtypeNumber { w.writeVarUInt(subtypeNumber) }
        switch self {
        case .hello(let version, let maxFrame, let heartbeat):
            w.writeVarString(version)
            w.writeVarUInt(maxFrame)
            w.writeVarUInt(heartbeat)
        case .update(let id, let sequence, let bytes):
            w.writeVarString(id)
            w.writeVarUInt(sequence)
            w.writeVarBytes(bytes)
        case .ack(let id, let through):
            w.writeVarString(id)
            w.writeVarUInt(through)
        case .error(let code, let message, let id):
            w.writeVarString(code)
            w.writeVarString(message)
            Self.writeOptional(id, to: &w)
        case .broadcast(let id, let topic, let payload, let sender):
            w.writeVarString(id)
            w.writeVarString(topic)
            w.writeVarString(payload)
            Self.writeOptional(sender, to: &w)
        case .leave(let id):
            w.writeVarString(id)
        case .directory(let message):
            message.write(to: &w)
        case .channel(let message):
            message.write(to: &w)
        }
        return .custom(type: Self.frameType, body: w.bytes)
    }

    /// The bytes of one WebSocket binary message.
    public func encode() throws(AccordError) -> [UInt8] { try frame().encode() }

    /// Decodes a whole WebSocket binary message, which must be of outer type 100.
    public static func decode(_ bytes: [UInt8]) throws(AccordError) -> AccordMessage {
        try decode(frame: try ProtocolFrame.decode(bytes))
    }

    /// Interprets a frame already split by ``ProtocolFrame/decode(_:)``. Every failure,
    /// including a frame of another type, throws ``ErrorCode/malformedMessage``.
    public static func decode(frame: ProtocolFrame) throws(AccordError) -> AccordMessage {
        guard case .custom(frameType, let body) = frame else {
            throw AccordError(.malformedMessage, "frame of type \(frame.type) is not an Accord message")
        }
        var r = ByteReader.message(body)
        do throws(AccordError) {
            let message = try read(from: &r)
            try r.expectEnd("Accord message")
            try message.validate()
            return message
        } catch {
            throw error.asMalformedMessage()
        }
    }

    private static func read(from r: inout ByteReader) throws(AccordError) -> AccordMessage {
        let start = r.position
        let raw = try r.readVarUInt()
        if DirectoryMessage.isDirectorySubtype(raw) {
            return .directory(try DirectoryMessage.read(subtype: raw, from: &r))
        }
        if ChannelMessage.reservedSubtypes.contains(raw) {
            return .channel(try ChannelMessage.read(subtype: raw, at: start, from: &r))
        }
        guard let subtype = Subtype(rawValue: raw) else {
            // Unknown subtypes are refused, not skipped: the body has no length, so
            // nothing after it could be found.
            throw AccordError(.malformedMessage, "unknown Accord message subtype \(raw)",
                              details: ["offset": String(start)])
        }
        switch subtype {
        case .hello:
            return .hello(serverVersion: try r.readVarString(), maxFrameBytes: try r.readVarUInt(),
                          heartbeatSeconds: try r.readVarUInt())
        case .update:
            return .update(documentID: try r.readVarString(), sequence: try r.readVarUInt(),
                           bytes: try r.readVarBytes())
        case .ack:
            return .ack(documentID: try r.readVarString(), through: try r.readVarUInt())
        case .error:
            return .error(code: try r.readVarString(), message: try r.readVarString(),
                          documentID: try readOptional(from: &r))
        case .broadcast:
            return .broadcast(documentID: try r.readVarString(), topic: try r.readVarString(),
                              payload: try r.readVarString(), sender: try readOptional(from: &r))
        case .leave:
            return .leave(documentID: try r.readVarString())
        }
    }

    /// Optional strings are `vu(0)` for absent or `vu(1) · vs(value)`: an empty string
    /// is a value, not absence, so it cannot double as the marker.
    static func writeOptional(_ value: String?, to w: inout ByteWriter) {
        guard let value else { return w.writeVarUInt(UInt64(0)) }
        w.writeVarUInt(UInt64(1))
        w.writeVarString(value)
    }

    static func readOptional(from r: inout ByteReader) throws(AccordError) -> String? {
        let start = r.position
        switch try r.readVarUInt() {
        case 0: return nil
        case 1: return try r.readVarString()
        case let other:
            throw AccordError(.malformedMessage, "optional string marker \(other) is neither 0 nor 1",
                              details: ["offset": String(start)])
        }
    }

    /// The field rules shared by encoding and decoding, thrown as ``ErrorCode/invalidArgument``.
    func validate() throws(AccordError) {
        switch self {
        case .hello(let version, _, _):
            try Self.limit(version, "server version", max: Self.maxServerVersionBytes)
        case .update(let id, _, _), .ack(let id, _), .leave(let id):
            try WireDocumentID.validate(id)
        case .error(let code, _, let id):
            guard !code.isEmpty else { throw AccordError(.invalidArgument, "an error code may not be empty") }
            try Self.limit(code, "error code", max: Self.maxCodeBytes)
            if let id { try WireDocumentID.validate(id) }
        case .broadcast(let id, let topic, let payload, let sender):
            try WireDocumentID.validate(id)
            try Self.limit(topic, "broadcast topic", max: Self.maxTopicBytes)
            if let sender { try Self.limit(sender, "broadcast sender", max: Self.maxSenderBytes) }
            try Self.validateJSON(payload)
        case .directory(let message):
            try message.validate()
        case .channel(let message):
            try message.validate()
        }
    }

    static func limit(_ s: String, _ what: String, max: Int) throws(AccordError) {
        let count = s.utf8.count
        guard count <= max else {
            throw AccordError(.invalidArgument, "\(what) has \(count) bytes; at most \(max) allowed")
        }
    }

    /// `undefined` is refused although ``AnyValue`` parses it: `JSON.parse` in a
    /// JavaScript peer would throw on it.
    static func validateJSON(_ text: String) throws(AccordError) {
        let value: AnyValue
        do throws(AccordError) {
            value = try AnyValue(jsonText: text)
        } catch {
            throw AccordError(.invalidArgument, "broadcast payload is not JSON: \(error.message)")
        }
        if case .undefined = value {
            throw AccordError(.invalidArgument, "broadcast payload is not JSON: undefined")
        }
    }
}
