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
        /// Request line plus headers of an HTTP request or upgrade (431 `HEADERS_TOO_LARGE`
        /// beyond); room for long bearer tokens.
        public var maxHeaderBytes = 16 << 10
        /// REST request bodies (413 `BODY_TOO_LARGE` beyond).
        public var maxRequestBodyBytes = 16 << 20
        /// A request head (of any method) must be complete this long after the
        /// connection opened or its previous response (also the keep-alive idle time).
        public var headerTimeoutSeconds = 10
        /// Connections from one address that are not (yet) WebSockets; beyond, 503
        /// `TOO_MANY_CONNECTIONS`. 0: no cap. Behind a reverse proxy every client
        /// shares the proxy's address: raise it or set 0 there.
        public var maxConnectionsPerAddress = 256
        /// Descriptors kept for health checks: within this many of the descriptor
        /// limit, only `/healthz` and `/metrics` are served (others get 503 `SERVER_BUSY`).
        public var descriptorReserve = 64
        /// A document with no connections is flushed and unloaded after this long.
        public var roomIdleSeconds: Double = 30
        /// Open sync connections per user (token `sub`); more are closed with
        /// `TOO_MANY_CONNECTIONS` (4429).
        public var maxConnectionsPerUser = 64
        /// Documents one connection may have joined at once; more are refused with
        /// `TOO_MANY_ROOMS`.
        public var maxRoomsPerConnection = 256
        /// Channels one connection may have attached at once; more are refused with
        /// `TOO_MANY_CHANNELS`.
        public var maxChannelsPerConnection = 64
        /// Documents one user may create per hour (REST and create-on-connect together;
        /// a bucket of this many, refilled at this rate); more are `TOO_MANY_DOCUMENTS`.
        public var maxDocumentsCreatedPerUserPerHour = 1000
        /// Bytes of partially received WebSocket messages that one user's connections may
        /// hold together (each connection holds at most one message of at most
        /// ``maxFrameBytes``); a message that would pass it is dropped with `QUOTA_EXCEEDED`.
        public var maxPartialBytesPerUser = 64 << 20
        /// Users (token `sub`) who may call the admin routes (`/v1/admin/...`: export and
        /// import of documents, whatever their access rows say). Empty: nobody.
        public var adminUsers: Set<String> = []
        /// Largest blob an upload may announce (413 `BLOB_TOO_LARGE` beyond, before the body).
        public var maxBlobBytes: Int64 = ServerBlobs.Limits().maxBlobBytes
        /// Bytes of blobs the documents one user owns may reference together (413
        /// `QUOTA_EXCEEDED` beyond, before the body); nil: no quota.
        public var blobQuotaPerUser: Int64? = ServerBlobs.Limits().quotaPerUser
        /// An unreferenced blob is kept this long after it was stored or last lost a
        /// reference; a collection pass runs every `blobCollectionIntervalSeconds`.
        public var blobGracePeriodSeconds: Double = 3600
        public var blobCollectionIntervalSeconds: Double = 600
        /// An unfinished upload untouched this long is discarded.
        public var blobUploadExpirySeconds: Double = 86400
        /// Where unfinished uploads are kept; nil: inside the storage's blob directory.
        public var blobUploadsDirectory: String?
        /// Where notifications (shares with `sendEmail`, access-request decisions) are
        /// POSTed (`http(s)://host[:port]/path`); nil: they are kept in the outbox (at most
        /// ``notificationOutboxCapacity``) and counted in `/metrics`.
        public var notifyWebhookURL: String?
        /// How an `https://` webhook's certificate is checked (the system's authorities
        /// unless a private CA's file is given).
        public var notifyWebhookTrust: ClientTLS = .system
        /// The certificate and key to serve `wss://` and `https://` with (the port is then
        /// TLS only); `ServerTLS.reload()` swaps them for new connections. nil: plain.
        public var tls: ServerTLS?
        /// Notifications the outbox holds at most; queuing past it drops the oldest (counted).
        public var notificationOutboxCapacity = 10_000
        /// The wait after a failed webhook attempt doubles from this, up to the maximum.
        public var notificationRetryInitialMilliseconds: Int64 = 1000
        public var notificationRetryMaxMilliseconds: Int64 = 3_600_000
        /// Set on every node of a cluster (several servers on one shared store, see
        /// docs/deployment.md): how the node hears of the others' appends. The store must
        /// be opened with ``DocumentStore/Options/shared``.
        public var cluster: (any ClusterLink)?
        /// Milliseconds since the epoch; tests may substitute a clock.
        public var now: @Sendable () -> UInt64 = { UInt64(Date().timeIntervalSince1970 * 1000) }

        public init() {}
    }

    /// The port the server listens on.
    public let port: Int
    public let metrics: ServerMetrics
    public let directory: DocumentDirectory
    /// The server's blob storage (uploads, references, collection).
    public let blobs: ServerBlobs
    private let collector: BlobCollector
    /// Notifications waiting for the webhook.
    public let notifications: NotificationOutbox
    private let webhook: WebhookDelivery?
    let hub: SyncHub
    private let cluster: (any ClusterLink)?
    private let monitor: DashboardMonitor
    private let server: WebSocketServer

    /// Starts serving `documents` (whose storage also holds the access rows).
    /// Throws `IO_ERROR` when the address cannot be bound.
    public init(configuration: Configuration, documents: DocumentStore, tokens: TokenAuthority) throws(AccordError) {
        let metrics = ServerMetrics()
        let quota = CreationQuota(
            limit: configuration.maxDocumentsCreatedPerUserPerHour, now: configuration.now,
            onRefused: { metrics.refused(.documentsPerUserPerHour) })
        let access = AccessStore(storage: documents.storage, clusterLock: documents.options.shared?.documentLock)
        let directory = DocumentDirectory(documents: documents, access: access, creationQuota: quota)
        let redeemer = InvitationRedeemer(directory: directory)
        // Every verified request redeems its email's pending invitations (first time only).
        let authenticate: @Sendable (HTTPRequest) throws(AccordError) -> String = { request throws(AccordError) in
            let claims = try tokens.authenticate(request)
            redeemer.signedIn(claims)
            return claims.subject
        }
        let notifications = try NotificationOutbox(
            storage: documents.storage, capacity: configuration.notificationOutboxCapacity)
        let hub = SyncHub(
            directory: directory,
            options: SyncHub.Options(
                limits: Session.Limits(
                    maxFrameBytes: configuration.maxFrameBytes, messagesPerSecond: configuration.messagesPerSecond,
                    burst: configuration.messageBurst, heartbeatSeconds: configuration.heartbeatSeconds,
                    maxRooms: max(1, configuration.maxRoomsPerConnection),
                    maxChannels: max(1, configuration.maxChannelsPerConnection)),
                createDocumentsOnConnect: configuration.createDocumentsOnConnect,
                maxDocumentBytes: configuration.maxDocumentBytes,
                roomIdleMilliseconds: UInt64(configuration.roomIdleSeconds * 1000),
                now: configuration.now,
                maxConnectionsPerUser: configuration.maxConnectionsPerUser,
                maxPartialBytesPerUser: configuration.maxPartialBytesPerUser,
                cluster: configuration.cluster),
            metrics: metrics,
            authenticate: { request throws(AccordError) in
                let claims = try tokens.authenticate(request)
                redeemer.signedIn(claims)
                return SyncIdentity(user: claims.subject, channels: claims.channels)
            })
        redeemer.reportTo { change in
            hub.directoryChanged(.access(change.id, before: change.before, after: change.after, cause: DirectoryMessage.Cause.grant))
            hub.accessChanged(change.id)
        }

        var routes = HTTPRoutes()
        routes.add(.get, "/healthz") { _ in
            HTTPResponse(status: 200, contentType: "application/json", body: Array(#"{"status":"ok"}"#.utf8))
        }
        // Ready = the storage answers a read now (for PostgreSQL, a round trip); a load
        // balancer stops sending new connections to a node whose database is gone.
        routes.add(.get, "/readyz") { [storage = documents.storage, cluster = configuration.cluster] _ in
            do throws(AccordError) {
                _ = try storage.withAdapter { try $0.read(StorageCategory("server.ready"), key: "probe") }
                if let cluster, !cluster.isConnected {
                    return RESTError.response(AccordError(
                        .serverNotReady, "not listening for the other cluster nodes' updates (reconnecting)"))
                }
                return HTTPResponse(status: 200, contentType: "application/json", body: Array(#"{"status":"ready"}"#.utf8))
            } catch {
                return RESTError.response(AccordError(.serverNotReady, "the storage does not answer: \(error.message)"))
            }
        }
        routes.add(.get, "/metrics") { _ in
            HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4", body: Array(metrics.render().utf8))
        }
        var blobLimits = ServerBlobs.Limits()
        blobLimits.maxBlobBytes = configuration.maxBlobBytes
        blobLimits.quotaPerUser = configuration.blobQuotaPerUser
        blobLimits.gracePeriodMilliseconds = UInt64(max(0, configuration.blobGracePeriodSeconds) * 1000)
        blobLimits.uploadExpiryMilliseconds = UInt64(max(0, configuration.blobUploadExpirySeconds) * 1000)
        let blobs = try ServerBlobs(
            directory: directory, limits: blobLimits, uploadsDirectory: configuration.blobUploadsDirectory,
            now: configuration.now)
        let collector = BlobCollector(blobs: blobs, intervalSeconds: configuration.blobCollectionIntervalSeconds)
        let documentsAPI = DocumentsAPI(
            directory: directory, authenticate: authenticate, accessChanged: { hub.accessChanged($0) },
            blobs: BlobsAPI(
                blobs: blobs, authenticate: authenticate, collectionRequested: { collector.request() },
                admins: configuration.adminUsers),
            directoryChanged: { hub.directoryChanged($0) },
            now: { [now = configuration.now] in Date(timeIntervalSince1970: Double(now()) / 1000) },
            notifications: notifications)
        documentsAPI.register(in: &routes)
        let schemas = RecordsSchemaStore(storage: documents.storage)
        RecordsAPI(
            directory: directory, schemas: schemas, hub: hub,
            indexes: ServerRecordIndexes(),
            // Uploads spool next to the blob files (the data directory's disk), else to the temporary directory.
            ingests: IngestSessions(spoolDirectory: blobs.store.directory.map { $0.path + "/.ingests" }),
            authenticate: authenticate, now: configuration.now
        ).register(in: &routes, besides: documentsAPI)
        AdminAPI(directory: directory, schemas: schemas, hub: hub, admins: configuration.adminUsers, authenticate: authenticate)
            .register(in: &routes)
        GroupsAPI(
            directory: directory, admins: configuration.adminUsers, authenticate: authenticate,
            adminClaim: { request in (try? tokens.authenticate(request).isAdmin) == true },
            membershipChanged: { group, added, removed in
                // A removed member's connections are re-checked now (on every node of a
                // cluster), so their next message is refused.
                hub.groupChanged(group, added: added, removed: removed)
            }
        ).register(in: &routes)
        CollectionsAPI(
            directory: directory, authenticate: authenticate, directoryChanged: { hub.directoryChanged($0) },
            accessChanged: { hub.accessChanged($0) }, collectionChanged: { hub.collectionChanged($0) }
        ).register(in: &routes)
        let dashboardCPU = DashboardCPU()
        metrics.readDashboardCPU(from: dashboardCPU)
        let monitor = DashboardMonitor(metrics: metrics, cpu: dashboardCPU, now: configuration.now)
        let people = DashboardPeople(now: configuration.now)
        // The hooks run on the hub's queue for every update and disconnect: dashboard CPU
        // too, sampled (one call in 16 timed) since a clock read costs more than a call.
        hub.updateAppended = { id, bytes, time in
            dashboardCPU.measureBrief(.hooks) { monitor.updateAppended(id, bytes: bytes, time: time) }
        }
        hub.userDisconnected = { user, documents, time in
            dashboardCPU.measureBrief(.hooks) { people.disconnected(user, documents: documents, at: time) }
        }
        // The export route answers for the dashboard once the dashboard has checked its caller.
        let dashboardExport = AdminAPI(
            directory: directory, schemas: schemas, hub: hub, admins: ["dashboard"], authenticate: { _ in "dashboard" })
        DashboardPages.register(in: &routes, cpu: dashboardCPU)
        DashboardAPI(
            directory: directory, hub: hub, monitor: monitor, people: people,
            contents: DashboardContentCache(now: configuration.now), documentsAPI: documentsAPI,
            blobStore: blobs.store,
            export: { id in
                dashboardExport.respond(to: HTTPRequest(method: .get, path: AdminAPI.prefix + "/" + id.rawValue + "/export"))
            },
            authenticateAdmin: { [admins = configuration.adminUsers] request throws(AccordError) in
                let claims = try tokens.authenticate(request)
                guard claims.isAdmin || admins.contains(claims.subject) else {
                    throw AccordError(.permissionDenied, "the dashboard is for the server's admins",
                                      details: ["required": "admin"])
                }
                return claims.subject
            }
        ).register(in: &routes)

        var network = WebSocketServer.Configuration(
            host: configuration.host, port: configuration.port, routes: routes,
            maxHTTPBodySize: configuration.maxRequestBodyBytes, maxHeaderBytes: configuration.maxHeaderBytes,
            headerTimeoutSeconds: configuration.headerTimeoutSeconds,
            maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
            descriptorReserve: configuration.descriptorReserve, reservedPaths: ["/healthz", "/readyz", "/metrics"],
            // Refusals are coded errors sent to clients: counted by code like the others.
            onRefusal: { refusal in metrics.error(refusal.code) },
            maxMessageSize: configuration.maxFrameBytes, closeOnOversizedMessage: false,
            pingAfterSeconds: configuration.heartbeatSeconds, hangUpAfterSeconds: 3 * configuration.heartbeatSeconds,
            maxQueuedBytes: configuration.maxQueuedBytes, slowConsumerCloseCode: SyncCloseCode.slowConsumer,
            shouldUpgrade: { request in
                request.path == SyncEndpoint.multiplexedPath || SyncEndpoint.isDocumentPath(request.path)
                    || request.path == DashboardMonitor.livePath
            },
            onEvent: { event in DashboardMonitor.owns(event) ? monitor.handle(event) : hub.handle(event) })
        // Partial messages are held by the network thread, so it keeps the per-user
        // budget; the group of a connection is its user, from the same verifier the hub
        // uses (once per connection). Unauthenticated connections are in no group: they
        // are closed before they send anything we read.
        network.maxPartialBytesPerGroup = configuration.maxPartialBytesPerUser
        // The bare verifier: redeeming here, before the hub has the connection, would
        // report the grants before the connection could hear of them.
        network.partialBytesGroup = { request in try? tokens.authenticate(request).subject }
        network.tls = configuration.tls
        network.onTLSFailure = { _ in metrics.tlsFailed() }
        var webhook: WebhookDelivery?
        if let url = configuration.notifyWebhookURL {
            var options = WebhookDelivery.Options(url: url)
            options.trust = configuration.notifyWebhookTrust
            options.initialBackoffMilliseconds = max(1, configuration.notificationRetryInitialMilliseconds)
            options.maxBackoffMilliseconds = max(options.initialBackoffMilliseconds, configuration.notificationRetryMaxMilliseconds)
            do {
                webhook = try WebhookDelivery(
                    outbox: notifications, options: options, now: { [now = configuration.now] in Int64(now()) })
            } catch {
                collector.stop()
                throw error
            }
        }
        hub.start()
        configuration.cluster?.start { event in hub.clusterEvent(event) }
        monitor.start(observing: documents)
        do {
            server = try WebSocketServer(network)
        } catch {
            monitor.stop()
            configuration.cluster?.stop()
            try? hub.stop()
            collector.stop()
            if let webhook { Task { await webhook.stop() } }
            throw AccordError(.ioError, "cannot listen on \(configuration.host):\(configuration.port): \(error.message)",
                              details: ["host": configuration.host, "port": String(configuration.port)])
        }
        metrics.readOutbound { [server] in server.outbound }
        metrics.readNotifications { notifications.currentStatistics }
        self.notifications = notifications
        self.webhook = webhook
        self.port = server.port
        self.hub = hub
        self.cluster = configuration.cluster
        self.metrics = metrics
        self.directory = directory
        self.blobs = blobs
        self.collector = collector
        self.monitor = monitor
    }

    /// Closes every connection (code 1001), makes everything received durable and
    /// stops listening. The document store stays open; the caller closes it.
    public func stop() async throws(AccordError) {
        // The hub waits for its queue and flushes (fsync): do that on a dispatch thread,
        // never on a Swift concurrency thread.
        let hub = self.hub
        // First, so no delivery starts while the rest stops (an attempt cut short stays queued).
        await webhook?.stop()
        cluster?.stop()
        let stopped = await withCheckedContinuation { (done: CheckedContinuation<Result<Void, AccordError>, Never>) in
            DispatchQueue.global().async {
                done.resume(returning: Result { () throws(AccordError) in try hub.stop() })
            }
        }
        monitor.stop()
        // The hub asked every connection to close with 1001: let those frames go out.
        await server.stop(gracePeriod: .seconds(2))
        collector.stop()
        try stopped.get()
    }
}
