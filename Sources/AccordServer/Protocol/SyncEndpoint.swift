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
    /// under `/v1/sync/` whose id breaks the ``DocumentID`` rule (`x/../y`, `p//q`, a
    /// trailing `/`...) throws `INVALID_ARGUMENT`: the path is taken as it arrived, never
    /// normalised, so it names one document or none.
    ///
    /// Compares bytes, not `Character`s: an id may start with a combining mark, which
    /// would fuse with the `/` before it and defeat `hasPrefix`.
    public init?(path: String) throws(AccordError) {
        let bytes = path.utf8
        if bytes.elementsEqual(Self.multiplexedPath.utf8) {
            self = .multiplexed
        } else if Self.isDocumentPath(path) {
            // Cutting an ASCII prefix off valid UTF-8 leaves valid UTF-8.
            let id = String(decoding: bytes.dropFirst(Self.documentPrefix.utf8.count), as: UTF8.self)
            self = .document(try DocumentID(validating: id))
        } else {
            return nil
        }
    }

    /// Whether `path` is under `/v1/sync/` (bytes, as above).
    static func isDocumentPath(_ path: String) -> Bool {
        path.utf8.starts(with: documentPrefix.utf8)
    }

    /// Splits one received WebSocket message into its document and frame. On a
    /// single-document endpoint every frame belongs to that document. Throws
    /// `MALFORMED_MESSAGE`.
    func decode(_ bytes: [UInt8]) throws(AccordError) -> (document: DocumentID?, frame: ProtocolFrame) {
        switch self {
        case .document(let id):
            let frame = try ProtocolFrame.decode(bytes)
            // An Accord message is framing too: decode it here, as the multiplexed
            // envelope does, so a broken one closes the connection on both endpoints.
            if frame.type == AccordMessage.frameType { _ = try AccordMessage.decode(frame: frame) }
            return (id, frame)
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
            return w.takeBytes()
        }
    }
}
