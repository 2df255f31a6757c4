/// The body of a y-websocket auth frame (outer type 2).
///
/// y-protocols `auth.js` defines only "permission denied" (`vu(0) · vs(reason)`); Yrs
/// also sends `vu(1)` with nothing after it to say access was granted. Both are
/// understood so Accord can talk to either kind of server.
public enum AuthMessage: Hashable, Sendable {
    /// The server refused access; the reason is for people, not programs.
    case permissionDenied(reason: String)
    /// Access was granted (a Yrs extension; y-protocols never sends it).
    case permissionGranted

    static let deniedType: UInt64 = 0
    static let grantedType: UInt64 = 1

    func write(to w: inout ByteWriter) {
        switch self {
        case .permissionDenied(let reason):
            w.writeVarUInt(Self.deniedType)
            w.writeVarString(reason)
        case .permissionGranted:
            w.writeVarUInt(Self.grantedType)
        }
    }

    /// Reads an auth body. An unknown auth type is an error rather than ignored: its
    /// length is unknown, so nothing after it could be trusted.
    static func decode(from reader: inout ByteReader) throws(AccordError) -> AuthMessage {
        do throws(AccordError) {
            let start = reader.position
            switch try reader.readVarUInt() {
            case deniedType: return .permissionDenied(reason: try reader.readVarString())
            case grantedType: return .permissionGranted
            case let other:
                throw AccordError(.malformedMessage, "unknown auth message type \(other)",
                                  details: ["offset": String(start)])
            }
        } catch {
            throw error.asMalformedMessage()
        }
    }
}
