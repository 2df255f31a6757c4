public import AccordCRDT
public import AccordStore

/// The two WebSocket paths the server speaks sync on.
///
/// - `/v1/sync/{documentId}`: plain y-websocket framing for one document, so stock
///   y-websocket, pycrdt-websocket and Yrs clients work unchanged.
/// - `/v1/sync`: Accord clients multiplex every open document over one connection;
///   each frame is a ``MultiplexedFrame`` naming its document.
public enum SyncEndpoint: Hashable, Sendable {
    case multiplexed
    case document(DocumentID)

    public static let multiplexedPath = "/v1/sync"
    static let documentPrefix = "/v1/sync/"

    /// The endpoint for a request path, nil when the path is not a sync path. A path
    /// under `/v1/sync/` whose id is invalid throws `INVALID_ARGUMENT`.
    public init?(path: String) throws(AccordError) {
        if path == Self.multiplexedPath {
            self = .multiplexed
        } else if path.hasPrefix(Self.documentPrefix) {
            let id = String(path.dropFirst(Self.documentPrefix.count))
            self = .document(try DocumentID(validating: id))
        } else {
            return nil
        }
    }

    /// Splits one received WebSocket message into its document and frame. On a
    /// single-document endpoint every frame belongs to that document. Throws
    /// `MALFORMED_MESSAGE`.
    func decode(_ bytes: [UInt8]) throws(AccordError) -> (document: DocumentID?, frame: ProtocolFrame) {
        switch self {
        case .document(let id):
            return (id, try ProtocolFrame.decode(bytes))
        case .multiplexed:
            let envelope = try MultiplexedFrame.decode(bytes)
            guard let raw = envelope.documentID else { return (nil, envelope.frame) }
            // MultiplexedFrame checked the id with the same rule DocumentID uses.
            guard let id = DocumentID(rawValue: raw) else {
                throw AccordError(.malformedMessage, "invalid document id in frame")
            }
            return (id, envelope.frame)
        }
    }

    /// The bytes of one frame about `document` (nil: connection-wide) on this endpoint.
    func encode(_ frame: ProtocolFrame, document: DocumentID?) -> [UInt8] {
        switch self {
        case .document:
            return frame.encode()
        case .multiplexed:
            // Frames built by the server are valid by construction; the envelope is
            // written directly rather than through the validating encoder.
            var w = ByteWriter()
            w.writeVarString(document?.rawValue ?? "")
            w.writeRaw(frame.encode())
            return w.bytes
        }
    }
}
