/// One WebSocket binary message on `/v1/sync`, where a client multiplexes all its open
/// documents over one connection: `vs(documentID) · frame`, where `frame` is a whole
/// y-websocket frame (``ProtocolFrame``) taking the rest of the message.
///
/// Naming the document in every frame is what lets the server refuse or fail one
/// document without touching the others. An empty id (never a valid document id)
/// marks connection-wide frames such as ``AccordMessage/hello(serverVersion:maxFrameBytes:heartbeatSeconds:)``.
public struct MultiplexedFrame: Hashable, Sendable {
    /// The document, or nil for the connection as a whole.
    public var documentID: String?
    public var frame: ProtocolFrame

    public init(documentID: String?, frame: ProtocolFrame) {
        self.documentID = documentID
        self.frame = frame
    }

    /// Wraps an Accord message under the document it names.
    public init(_ message: AccordMessage) throws(AccordError) {
        self.init(documentID: message.documentID, frame: try message.frame())
    }

    /// Throws ``ErrorCode/invalidArgument`` for an invalid id or a frame that
    /// ``decode(_:)`` would refuse (see there).
    public func encode() throws(AccordError) -> [UInt8] {
        try check()
        var w = ByteWriter()
        w.writeVarString(documentID ?? "")
        w.writeRaw(frame.encode())
        return w.takeBytes()
    }

    /// Decodes one message; every failure throws ``ErrorCode/malformedMessage``.
    ///
    /// An inner Accord message (type 100) is decoded too, and must name the same
    /// document as the envelope: a disagreement would let the two layers route the
    /// frame differently. y-protocols frames are always about one document, so they
    /// cannot be connection-wide.
    public static func decode(_ bytes: [UInt8]) throws(AccordError) -> MultiplexedFrame {
        var r = ByteReader.message(bytes)
        do throws(AccordError) {
            let id = try r.readVarString()
            let inner = try ProtocolFrame.decode(Array(try r.readBytes(count: r.remaining)))
            let result = MultiplexedFrame(documentID: id.isEmpty ? nil : id, frame: inner)
            try result.check()
            return result
        } catch {
            throw error.asMalformedMessage()
        }
    }

    /// The inner frame as an Accord message, or nil if it is a y-protocols frame.
    public var accordMessage: AccordMessage? {
        guard frame.type == AccordMessage.frameType else { return nil }
        return try? AccordMessage.decode(frame: frame)
    }

    private func check() throws(AccordError) {
        if let documentID { try WireDocumentID.validate(documentID) }
        guard frame.type == AccordMessage.frameType else {
            guard documentID != nil else {
                throw AccordError(.invalidArgument, "a frame of type \(frame.type) must name a document")
            }
            return
        }
        let message: AccordMessage
        do throws(AccordError) {
            message = try AccordMessage.decode(frame: frame)
        } catch {
            throw AccordError(.invalidArgument, error.message, details: error.details)
        }
        guard message.documentID == documentID else {
            throw AccordError(.invalidArgument,
                              "the envelope names document \(documentID.map { "'\($0)'" } ?? "none") but its Accord message names \(message.documentID.map { "'\($0)'" } ?? "none")")
        }
    }
}
