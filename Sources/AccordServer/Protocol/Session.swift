public import AccordCRDT
public import AccordStore

/// The protocol state of one WebSocket connection: authentication, which documents it
/// joined, its message rate, how its frames are framed (``SyncEndpoint``) and which
/// messages its client understands (``SyncDialect``). A pure state machine: events in,
/// ``SessionAction``s out; the driver owns the socket.
public struct Session: Sendable {
    public struct Limits: Hashable, Sendable {
        public var maxFrameBytes: Int
        public var messagesPerSecond: Int
        public var burst: Int
        public var heartbeatSeconds: Int
        /// Documents one connection may have joined at once; more are `TOO_MANY_ROOMS`.
        public var maxRooms: Int
        /// Channels one connection may have attached at once; more are `TOO_MANY_CHANNELS`.
        public var maxChannels: Int
        public init(
            maxFrameBytes: Int = 16 << 20, messagesPerSecond: Int = 500, burst: Int = 1000, heartbeatSeconds: Int = 20,
            maxRooms: Int = 256, maxChannels: Int = 64
        ) {
            self.maxFrameBytes = maxFrameBytes
            self.messagesPerSecond = messagesPerSecond
            self.burst = burst
            self.heartbeatSeconds = heartbeatSeconds
            self.maxRooms = maxRooms
            self.maxChannels = maxChannels
        }
    }

    /// How a join request ended.
    public enum JoinOutcome: Hashable, Sendable {
        case joined(canWrite: Bool)
        case refused(AccordError)
    }

    public let endpoint: SyncEndpoint
    public let dialect: SyncDialect
    public let limits: Limits
    public private(set) var user: String?
    public private(set) var documents: Set<DocumentID> = []
    /// Attached channels, with whether each is realtime (`Session+Channels.swift`).
    public internal(set) var channels: [ChannelKey: Bool] = [:]
    /// The token's `channels` claim; nil: any channel.
    public private(set) var channelPattern: ChannelKeyPattern?
    public private(set) var isClosed = false
    private var rate: RateLimiter
    /// Set while messages are being dropped, so one error is sent per burst, not per message.
    private var isRateLimited = false

    public static let serverVersion = "accord/0.1"

    /// `dialect` applies to `/v1/sync/{id}`; `/v1/sync` is always ``SyncDialect/accord``.
    public init(endpoint: SyncEndpoint, dialect: SyncDialect = .accord, limits: Limits, now: UInt64) {
        self.endpoint = endpoint
        self.dialect = endpoint == .multiplexed ? .accord : dialect
        self.limits = limits
        self.rate = RateLimiter(ratePerSecond: limits.messagesPerSecond, burst: limits.burst, now: now)
    }

    // MARK: Opening

    /// The upgrade request was authenticated (the user id) or not. Nothing about any
    /// document is sent before this succeeds.
    /// `channelPattern` is the token's `channels` claim (nil: any channel).
    public mutating func opened(
        user authentication: Result<String, AccordError>, channelPattern: ChannelKeyPattern? = nil
    ) -> [SessionAction] {
        switch authentication {
        case .failure(let error):
            return closeWith(error, document: nil, code: SyncCloseCode.unauthenticated)
        case .success(let user):
            self.user = user
            self.channelPattern = channelPattern
            var actions: [SessionAction] = []
            if dialect == .accord, let hello = try? AccordMessage.hello(
                serverVersion: Self.serverVersion, maxFrameBytes: UInt64(limits.maxFrameBytes),
                heartbeatSeconds: UInt64(limits.heartbeatSeconds)
            ).frame() {
                actions.append(.send(endpoint.encode(hello, document: nil)))
            }
            if case .document(let id) = endpoint { actions.append(.join(id, then: nil)) }
            return actions
        }
    }

    // MARK: Receiving

    /// One binary message from the client. `now` is in milliseconds.
    public mutating func received(_ bytes: [UInt8], now: UInt64) -> [SessionAction] {
        guard !isClosed, user != nil else { return [] }
        guard rate.allow(now: now) else {
            guard !isRateLimited else { return [] }
            isRateLimited = true
            return [sendError(AccordError(
                .rateLimited, "more than \(limits.messagesPerSecond) messages per second; messages are dropped",
                details: ["limit": String(limits.messagesPerSecond)]), document: nil)]
        }
        isRateLimited = false
        guard bytes.count <= limits.maxFrameBytes else { return tooLarge() }
        let decoded: (document: DocumentID?, frame: ProtocolFrame)
        do {
            decoded = try endpoint.decode(bytes)
        } catch {
            return closeWith(error, document: nil, code: SyncCloseCode.malformed)
        }
        let channelMessage = Self.channelMessage(in: decoded.frame)
        guard let document = decoded.document else {
            // Connection-wide frames are Accord messages: channel requests, or an error
            // a client reports, which needs no answer.
            return channelMessage.map { receivedChannel($0) } ?? []
        }
        if channelMessage != nil {
            // Only `/v1/sync` carries channels: there a channel frame is connection-wide
            // (a document envelope around one is malformed), here it would name the document.
            return [sendError(AccordError(
                .invalidArgument, "channels are served on \(SyncEndpoint.multiplexedPath) only"), document: nil)]
        }
        if case .custom(AccordMessage.frameType, _) = decoded.frame,
           case .leave? = try? AccordMessage.decode(frame: decoded.frame) {
            // Leaving a document not joined is a no-op, never a join.
            return documents.remove(document) == nil ? [] : [.leave(document)]
        }
        if documents.contains(document) {
            // A create names a document that exists once joined: nothing to do.
            return Self.isCreate(decoded.frame) ? [] : [.deliver(document, decoded.frame)]
        }
        guard documents.count < limits.maxRooms else {
            // Each frame naming a further document is refused (the client may leave one).
            return refuse(document, AccordError(
                .tooManyRooms, "a connection may have \(limits.maxRooms) documents open; leave one first",
                details: ["document": document.rawValue, "limit": String(limits.maxRooms)]))
        }
        return [.join(document, then: decoded.frame)]
    }

    /// The user's connections together hold too many bytes of partially received
    /// messages: the driver discarded this connection's message.
    public mutating func partialBytesRefused(limit: Int) -> [SessionAction] {
        guard !isClosed else { return [] }
        return [sendError(AccordError(
            .quotaExceeded,
            "your connections may hold \(limit) bytes of partly received messages together; the message was dropped",
            details: ["limit": String(limit)]), document: nil)]
    }

    /// A message over ``Limits/maxFrameBytes`` arrived (and was discarded unread).
    public mutating func tooLarge() -> [SessionAction] {
        guard !isClosed else { return [] }
        return [sendError(AccordError(
            .messageTooLarge, "messages are limited to \(limits.maxFrameBytes) bytes; the message was dropped",
            details: ["limit": String(limits.maxFrameBytes)]), document: nil)]
    }

    // MARK: Documents

    /// The driver resolved a ``SessionAction/join(_:then:)``.
    public mutating func joined(_ document: DocumentID, outcome: JoinOutcome, then frame: ProtocolFrame?) -> [SessionAction] {
        guard !isClosed else { return [] }
        switch outcome {
        case .joined:
            documents.insert(document)
            // A create did its work in the join (the driver read its entry).
            guard let frame, !Self.isCreate(frame) else { return [] }
            return [.deliver(document, frame)]
        case .refused(let error):
            return refuse(document, error)
        }
    }

    /// The user's access to a joined document changed. Losing all access removes the
    /// connection from the room at once (a single-document connection is closed).
    public mutating func accessRevoked(_ document: DocumentID, _ error: AccordError) -> [SessionAction] {
        guard documents.remove(document) != nil else { return [] }
        return [.leave(document)] + refuse(document, error)
    }

    /// An error from a document's room, sent to this connection.
    public func error(_ error: AccordError, document: DocumentID) -> SessionAction {
        sendError(error, document: document)
    }

    /// A frame from a document's room, framed for this connection; nil for an Accord
    /// message (an ack, a relayed broadcast) to a client that did not ask for them.
    public func frame(_ frame: ProtocolFrame, document: DocumentID) -> SessionAction? {
        if dialect == .yProtocols, case .custom = frame { return nil }
        return .send(endpoint.encode(frame, document: document))
    }

    /// The connection closed: leave every room.
    public mutating func closed() -> [SessionAction] {
        isClosed = true
        defer { documents = [] }
        return documents.sorted().map { .leave($0) } + releaseChannels()
    }

    /// Whether `frame` is a device's `create` (``DirectoryMessage``), which the join
    /// consumes and no room receives.
    static func isCreate(_ frame: ProtocolFrame) -> Bool {
        guard frame.type == AccordMessage.frameType,
              case .directory(.create)? = try? AccordMessage.decode(frame: frame)
        else { return false }
        return true
    }

    // MARK: Errors

    private func refuse(_ document: DocumentID, _ error: AccordError) -> [SessionAction] {
        switch endpoint {
        case .multiplexed:
            // Only this document is refused; the others on the connection carry on.
            return [sendError(error, document: document)]
        case .document where dialect == .yProtocols:
            return yProtocolsRefusal(error)
        case .document:
            var actions = [sendError(error, document: document)]
            if error.code == .docAccessDenied || error.code == .permissionDenied {
                // What stock y-websocket clients understand: an auth "permission denied".
                actions.append(.send(ProtocolFrame.auth(.permissionDenied(reason: error.message)).encode()))
            }
            actions.append(.close(code: Self.closeCode(for: error), reason: error.code.rawValue))
            return actions
        }
    }

    private mutating func closeWith(_ error: AccordError, document: DocumentID?, code: UInt16) -> [SessionAction] {
        isClosed = true
        let leaves = documents.sorted().map { SessionAction.leave($0) } + releaseChannels()
        documents = []
        if dialect == .yProtocols {
            return leaves + yProtocolsRefusal(error, code: code)
        }
        return leaves + [sendError(error, document: document), .close(code: code, reason: error.code.rawValue)]
    }

    /// A refusal as y-protocols says it: auth "permission denied" with the message as
    /// its reason (y-websocket logs it), then the close code with the error code as
    /// its reason. The error is counted as if it had been sent.
    private func yProtocolsRefusal(_ error: AccordError, code: UInt16? = nil) -> [SessionAction] {
        [.countError(error.code),
         .send(ProtocolFrame.auth(.permissionDenied(reason: error.message)).encode()),
         .close(code: code ?? Self.closeCode(for: error), reason: error.code.rawValue)]
    }

    func sendError(_ error: AccordError, document: DocumentID?) -> SessionAction {
        // A stock client cannot read an Accord error; the metrics still count it.
        guard dialect == .accord else { return .countError(error.code) }
        let message = AccordMessage.error(code: error.code.rawValue, message: error.message, documentID: document?.rawValue)
        // A message too long for the wire is cut rather than lost: the code is what matters.
        let frame = (try? message.frame())
            ?? (try? AccordMessage.error(code: error.code.rawValue, message: "", documentID: document?.rawValue).frame())
        return .sendError(frame.map { endpoint.encode($0, document: document) } ?? [], error.code)
    }

    static func closeCode(for error: AccordError) -> UInt16 {
        switch error.code {
        case .unauthenticated: SyncCloseCode.unauthenticated
        case .docAccessDenied, .permissionDenied: SyncCloseCode.forbidden
        case .documentNotFound: SyncCloseCode.notFound
        case .tooManyRooms, .tooManyDocuments, .tooManyConnections: SyncCloseCode.tooManyRequests
        case .malformedMessage: SyncCloseCode.malformed
        default: SyncCloseCode.unavailable
        }
    }
}
