/// A y-protocols sync message: the body of a y-websocket frame of outer type 0.
///
/// Wire form: `vu(type) · vb(payload)` (see `design/yjs-wire-format.md` §5.2). The
/// payloads stay opaque bytes here so this layer never depends on the document: a relay
/// can route and validate frames without decoding updates, and the engine decodes them
/// where it applies them.
public enum SyncMessage: Hashable, Sendable {
    /// "Here is my state vector; send me what I am missing." Sent first by both sides.
    case step1(stateVector: [UInt8])
    /// The answer to a step 1: an update v1 holding everything the asker lacks.
    case step2(update: [UInt8])
    /// An incremental update v1 made after the initial exchange.
    case update([UInt8])

    /// The numeric message types y-protocols `sync.js` and Yrs use.
    enum Kind: UInt64 {
        case step1 = 0
        case step2 = 1
        case update = 2
    }

    var kind: Kind {
        switch self {
        case .step1: .step1
        case .step2: .step2
        case .update: .update
        }
    }

    /// The state vector or update carried by the message.
    public var payload: [UInt8] {
        switch self {
        case .step1(let sv): sv
        case .step2(let update), .update(let update): update
        }
    }

    /// `vu(type) · vb(payload)`: the message without any outer frame type.
    public func encode() -> [UInt8] {
        var w = ByteWriter(capacity: payload.count + 8)
        write(to: &w)
        return w.takeBytes()
    }

    func write(to w: inout ByteWriter) {
        w.writeVarUInt(kind.rawValue)
        w.writeVarBytes(payload)
    }

    /// Reads one sync message and leaves the reader after it, so it can sit inside a
    /// larger frame. Throws ``ErrorCode/malformedMessage`` for an unknown type or a
    /// payload that runs past the input.
    public static func decode(from reader: inout ByteReader) throws(AccordError) -> SyncMessage {
        do throws(AccordError) {
            let start = reader.position
            let type = try reader.readVarUInt()
            guard let kind = Kind(rawValue: type) else {
                throw AccordError(.malformedMessage, "unknown sync message type \(type)",
                                  details: ["offset": String(start)])
            }
            let payload = try reader.readVarBytes()
            switch kind {
            case .step1: return .step1(stateVector: payload)
            case .step2: return .step2(update: payload)
            case .update: return .update(payload)
            }
        } catch {
            throw error.asMalformedMessage()
        }
    }

    /// Decodes a complete sync message; trailing bytes are an error.
    public static func decode(_ bytes: [UInt8]) throws(AccordError) -> SyncMessage {
        var reader = ByteReader.message(bytes)
        let message = try decode(from: &reader)
        try reader.expectEnd("sync message")
        return message
    }
}
