public import AccordCRDT
public import AccordStore
import AccordNet
import Foundation

/// The Accord sync server: WebSocket sync (y-websocket framing on `/v1/sync/{id}`,
/// multiplexed on `/v1/sync`), the REST API, `/healthz` and `/metrics`, on one port.
///
/// Documents live in a ``DocumentStore`` (SQLite by default); who may open them lives
/// in an ``AccessStore`` in the same storage. Every connection and request must carry
/// a bearer token signed by ``TokenAuthority``.
public final class AccordServer: Sendable {
    public struct Configuration: Sendable {
        /// Address to bind; "127.0.0.1" by default, "0.0.0.0" for every interface.
        public var host = "127.0.0.1"
        /// 0 picks a free port (read it back from ``AccordServer/port``).
        public var port = 0
        /// A signed-in user who opens a document id that does not exist creates it and
        /// becomes its owner. False refuses such joins with `DOCUMENT_NOT_FOUND`.
        public var createDocumentsOnConnect = true
        /// Larger WebSocket messages are dropped with `MESSAGE_TOO_LARGE`.
        public var maxFrameBytes = 16 << 20
        /// Updates that would take a document's stored size past this are refused with
        /// `DOCUMENT_TOO_LARGE`.
        public var maxDocumentBytes = 256 << 20
        /// Bytes one connection may have waiting to be sent (from the moment the server
        /// sends until the kernel takes them). A connection that does not read and passes
        /// it is closed with `SLOW_CONSUMER` (4408). One message larger than this (a large
        /// document's sync step 2) may wait besides, so any document can be joined.
        public var maxQueuedBytes = WebSocketServer.defaultMaxQueuedBytes
        /// Per-connection message rate; messages beyond it are dropped with `RATE_LIMITED`.
        public var messagesPerSecond = 500
        public var messageBurst = 1000
        /// Advertised in the hello message. A connection silent this long is pinged, and
        /// one silent for three times as long (no frame, no pong) is dropped.
        public var heartbeatSeconds = 20
        /// A document with no connections is flushed and unloaded after this long.
        public var roomIdleSeconds: Double = 30
        /// Milliseconds since the epoch; tests may substitute a clock.
        public var now: @Sendable () -> UInt64 = { UInt64(Date().timeIntervalSince1970 * 1000) }

        public init() {}
    }

    /// The port the server listens on.
    public let port: Int
    public let metrics: ServerMetrics
    public let directory: DocumentDirectory
    private let hub: SyncHub
    private let server: WebSocketServer

    /// Starts serving `documents` (whose storage also holds the access rows).
    /// Throws `IO_ERROR` when the address cannot be bound.
    public init(configuration: Configuration, documents: DocumentStore, tokens: TokenAuthority) throws(AccordError) {
        let directory = DocumentDirectory(documents: documents, access: AccessStore(storage: documents.storage))
        let metrics = ServerMetrics()
        let authenticate: @Sendable (HTTPRequest) throws(AccordError) -> String = { request throws(AccordError) in
            try tokens.authenticate(request).subject
        }
        let hub = SyncHub(
            directory: directory,
            options: SyncHub.Options(
                limits: Session.Limits(
                    maxFrameBytes: configuration.maxFrameBytes, messagesPerSecond: configuration.messagesPerSecond,
                    burst: configuration.messageBurst, heartbeatSeconds: configuration.heartbeatSeconds),
                createDocumentsOnConnect: configuration.createDocumentsOnConnect,
                maxDocumentBytes: configuration.maxDocumentBytes,
                roomIdleMilliseconds: UInt64(configuration.roomIdleSeconds * 1000),
                now: configuration.now),
            metrics: metrics, authenticate: authenticate)

        var routes = HTTPRoutes()
        routes.add(.get, "/healthz") { _ in
            HTTPResponse(status: 200, contentType: "application/json", body: Array(#"{"status":"ok"}"#.utf8))
        }
        routes.add(.get, "/metrics") { _ in
            HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4", body: Array(metrics.render().utf8))
        }
        DocumentsAPI(directory: directory, authenticate: authenticate, accessChanged: { hub.accessChanged($0) })
            .register(in: &routes)

        let network = WebSocketServer.Configuration(
            host: configuration.host, port: configuration.port, routes: routes,
            maxMessageSize: configuration.maxFrameBytes, closeOnOversizedMessage: false,
            pingAfterSeconds: configuration.heartbeatSeconds, hangUpAfterSeconds: 3 * configuration.heartbeatSeconds,
            maxQueuedBytes: configuration.maxQueuedBytes, slowConsumerCloseCode: SyncCloseCode.slowConsumer,
            shouldUpgrade: { request in
                request.path == SyncEndpoint.multiplexedPath || request.path.hasPrefix(SyncEndpoint.documentPrefix)
            },
            onEvent: { hub.handle($0) })
        hub.start()
        do {
            server = try WebSocketServer(network)
        } catch {
            try? hub.stop()
            throw AccordError(.ioError, "cannot listen on \(configuration.host):\(configuration.port): \(error.message)",
                              details: ["host": configuration.host, "port": String(configuration.port)])
        }
        metrics.readOutbound { [server] in server.outbound }
        self.port = server.port
        self.hub = hub
        self.metrics = metrics
        self.directory = directory
    }

    /// Closes every connection (code 1001), makes everything received durable and
    /// stops listening. The document store stays open; the caller closes it.
    public func stop() async throws(AccordError) {
        // The hub waits for its queue and flushes (fsync): do that on a dispatch thread,
        // never on a Swift concurrency thread.
        let hub = self.hub
        let stopped = await withCheckedContinuation { (done: CheckedContinuation<Result<Void, AccordError>, Never>) in
            DispatchQueue.global().async {
                done.resume(returning: Result { () throws(AccordError) in try hub.stop() })
            }
        }
        // The hub asked every connection to close with 1001: let those frames go out.
        await server.stop(gracePeriod: .seconds(2))
        try stopped.get()
    }
}
