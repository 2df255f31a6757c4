/// One y-websocket binary message: `vu(outerType) · body` (`design/yjs-wire-format.md` §5.1).
///
/// Outer types 0–3 are y-protocols'; any other type is kept as ``custom(type:body:)``
/// with its body untouched instead of being rejected. y-websocket ignores frames it does
/// not know, and Accord's own message range (and Yrs's custom messages) live there, so
/// this layer must let them through for a higher layer to interpret.
public enum ProtocolFrame: Hashable, Sendable {
    /// Outer type 0: a sync step or update.
    case sync(SyncMessage)
    /// Outer type 1: `vb(awarenessUpdate)`. The update stays encoded so a relay can
    /// forward it without parsing the JSON inside; see ``AwarenessUpdate/decode(_:)``.
    case awareness([UInt8])
    /// Outer type 2: permission denied or (Yrs) granted.
    case auth(AuthMessage)
    /// Outer type 3, empty body: "send me every awareness state you know".
    case queryAwareness
    /// Any other outer type, with the raw bytes that follow the type.
    /// Encoding a custom frame with a type of 0–3 produces bytes that decode as the
    /// corresponding y-protocols case, so use those cases instead.
    case custom(type: UInt64, body: [UInt8])

    public static let syncType: UInt64 = 0
    public static let awarenessType: UInt64 = 1
    public static let authType: UInt64 = 2
    public static let queryAwarenessType: UInt64 = 3

    /// The outer type number this frame is sent with.
    public var type: UInt64 {
        switch self {
        case .sync: Self.syncType
        case .awareness: Self.awarenessType
        case .auth: Self.authType
        case .queryAwareness: Self.queryAwarenessType
        case .custom(let type, _): type
        }
    }

    /// The bytes of one WebSocket binary message.
    public func encode() -> [UInt8] {
        var w = ByteWriter()
        w.writeVarUInt(type)
        switch self {
        case .sync(let message): message.write(to: &w)
        case .awareness(let update): w.writeVarBytes(update)
        case .auth(let auth): auth.write(to: &w)
        case .queryAwareness: break
        case .custom(_, let body): w.writeRaw(body)
        }
        return w.takeBytes()
    }

    /// Decodes one WebSocket binary message. Known types must use every byte; custom
    /// types take the rest of the input as their body. Throws ``ErrorCode/malformedMessage``.
    public static func decode(_ bytes: [UInt8]) throws(AccordError) -> ProtocolFrame {
        var reader = ByteReader.message(bytes)
        let frame: ProtocolFrame
        do throws(AccordError) {
            let type = try reader.readVarUInt()
            switch type {
            case syncType: frame = .sync(try SyncMessage.decode(from: &reader))
            case awarenessType: frame = .awareness(try reader.readVarBytes())
            case authType: frame = .auth(try AuthMessage.decode(from: &reader))
            case queryAwarenessType: frame = .queryAwareness
            default:
                return .custom(type: type, body: Array(try reader.readBytes(count: reader.remaining)))
            }
        } catch {
            throw error.asMalformedMessage()
        }
        try reader.expectEnd("frame of type \(frame.type)")
        return frame
    }
}
