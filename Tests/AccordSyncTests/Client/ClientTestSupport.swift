import Testing
import AccordCRDT
import AccordStore
import AccordNet
import AccordServer
import AccordTesting
@testable import AccordSync

/// An in-process `AccordServer` on 127.0.0.1 over a SQLite store in a temporary
/// directory, that can be stopped and started again on the same port and files.
final class ClientTestServer: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: the tests call stop() and start() from one
    // task, never concurrently with each other or with reads of `documents`/`server`.
    static let secret = Array("accord-client-test-secret-0123456789".utf8)
    let directory: TemporaryDirectory
    let tokens: TokenAuthority
    private(set) var documents: DocumentStore
    private(set) var server: AccordServer?
    private(set) var port: Int
    let heartbeatSeconds: Int
    let createDocumentsOnConnect: Bool
    /// The server's per-connection message rate limit.
    let rate: (perSecond: Int, burst: Int)
    /// Serves wss:// with this certificate when set.
    let tls: ServerTLS?

    init(
        heartbeatSeconds: Int = 20, createDocumentsOnConnect: Bool = true, messagesPerSecond: Int = 500,
        messageBurst: Int = 1000, tls: ServerTLS? = nil
    ) throws {
        self.tls = tls
        self.heartbeatSeconds = heartbeatSeconds
        self.createDocumentsOnConnect = createDocumentsOnConnect
        rate = (messagesPerSecond, messageBurst)
        directory = try TemporaryDirectory(prefix: "accord-client")
        tokens = try TokenAuthority(secret: Self.secret)
        documents = try DocumentStore(path: directory.file("server.sqlite"))
        let server = try AccordServer(
            configuration: Self.configuration(
                port: 0, heartbeatSeconds: heartbeatSeconds, createOnConnect: createDocumentsOnConnect, rate: rate, tls: tls),
            documents: documents, tokens: tokens)
        self.server = server
        port = server.port
    }

    /// The certificate of a TLS server names localhost.
    var url: String { tls == nil ? "ws://127.0.0.1:\(port)" : "wss://localhost:\(port)" }

    func token(_ user: String) -> String { tokens.mint(subject: user, ttl: 3600) }

    /// A client of `user` over `store`, with short reconnect delays, to this server or
    /// to `url` (a proxy in front of it).
    func client(
        _ user: String = "alice", store: DocumentStore, url: String? = nil,
        handshakeBudget: UInt64 = DocumentSyncMachine.defaultHandshakeBudget
    ) -> AccordClient {
        let token = token(user)
        return AccordClient(
            serverURL: url ?? self.url, store: store, reconnect: ReconnectPolicy(initialDelay: 50, maxDelay: 400),
            handshakeBudget: handshakeBudget, tokenProvider: { token })
    }

    /// Stops serving and closes the server's store, as a server going down would.
    func stop() async throws {
        guard let server else { return }
        self.server = nil
        try await server.stop()
        try documents.close()
    }

    /// Starts again on the same port over the same files. The port was just released,
    /// so binding is retried for a moment.
    func start() async throws {
        documents = try DocumentStore(path: directory.file("server.sqlite"))
        var lastError: AccordError?
        for _ in 0..<50 {
            do throws(AccordError) {
                server = try AccordServer(
                    configuration: Self.configuration(
                        port: port, heartbeatSeconds: heartbeatSeconds, createOnConnect: createDocumentsOnConnect,
                        rate: rate, tls: tls),
                    documents: documents, tokens: tokens)
                return
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw lastError ?? AccordError(.ioError, "cannot restart the server")
    }

    /// Who may open which document on the running server.
    var documentDirectory: DocumentDirectory {
        get throws {
            guard let server else { throw AccordError(.invalidArgument, "the server is stopped") }
            return server.directory
        }
    }

    /// Gives `member` `role` on `id`, owned by `owner`; creates the document first if the
    /// server does not have it.
    func share(_ id: DocumentID, owner: String = "alice", with member: String, as role: Role) throws {
        if try !documents.contains(id) { try documentDirectory.create(id, owner: owner) }
        var access = DocumentAccess(owner: owner)
        access.members[member] = role
        try documentDirectory.access.setAccess(access, for: id)
    }

    /// WebSocket connections the running server has open.
    var connections: Int { server?.metrics.snapshot.connections ?? 0 }

    /// The text "t" of a document as the server stored it.
    func storedText(_ id: DocumentID) throws -> String {
        try documents.load(id).getText("t").string
    }

    private static func configuration(
        port: Int, heartbeatSeconds: Int, createOnConnect: Bool, rate: (perSecond: Int, burst: Int), tls: ServerTLS?
    ) -> AccordServer.Configuration {
        var configuration = AccordServer.Configuration()
        configuration.tls = tls
        configuration.port = port
        configuration.heartbeatSeconds = heartbeatSeconds
        configuration.createDocumentsOnConnect = createOnConnect
        configuration.messagesPerSecond = rate.perSecond
        configuration.messageBurst = rate.burst
        return configuration
    }
}

/// Collects a client's events as they come, for assertions while the test runs.
actor EventLog {
    private(set) var events: [ClientEvent] = []

    init(_ client: AccordClient) {
        let stream = client.events
        Task { await self.consume(stream) }
    }

    private func consume(_ stream: AsyncStream<ClientEvent>) async {
        for await event in stream { events.append(event) }
    }

    var networkEvents: [NetworkModeEvent] {
        events.compactMap { if case .network(let event) = $0 { event } else { nil } }
    }

    func syncedCount(_ id: DocumentID) -> Int {
        events.filter { $0 == .document(id, .synced) }.count
    }

    func syncErrors(_ id: DocumentID) -> [AccordError] {
        events.compactMap { event in
            if case .document(let document, .syncError(let error)) = event, document == id { error } else { nil }
        }
    }

    var failures: [ClientEvent] {
        events.filter { if case .failure = $0 { true } else { false } }
    }
}

struct TimedOut: Error, CustomStringConvertible {
    var description: String
}

/// Polls `condition` until it holds, or records an issue and throws after `timeout`.
func eventually(
    _ what: String, timeout: Duration = .seconds(15), sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out: \(what)", sourceLocation: sourceLocation)
    throw TimedOut(description: what)
}

extension AccordClient {
    func text(_ id: DocumentID) throws -> String {
        try withDocument(id) { try $0.getText("t").string }
    }

    func insert(_ id: DocumentID, _ text: String) throws {
        try withDocument(id) { try $0.getText("t").insert(0, text) }
    }
}

func memoryStore() -> DocumentStore { DocumentStore(storage: SerialStorage.inMemory()) }

/// Two started clients of `server` on fresh in-memory stores, both with `id` open and
/// synced; `logA` records `a`'s events from before it started.
struct SyncedPair {
    let a: AccordClient
    let b: AccordClient
    let storeA: DocumentStore
    let storeB: DocumentStore
    let logA: EventLog

    init(_ server: ClientTestServer, _ id: DocumentID) async throws {
        (storeA, storeB) = (memoryStore(), memoryStore())
        a = server.client(store: storeA)
        b = server.client(store: storeB)
        logA = EventLog(a)
        await a.start()
        await b.start()
        try await a.open(id)
        try await b.open(id)
        let (a, b) = (a, b)
        try await eventually("both online and synced") {
            let (syncedA, syncedB) = (await a.isSynced(id), await b.isSynced(id))
            return syncedA && syncedB
        }
    }
}

/// Counts calls from concurrent code.
actor CallCounter {
    private(set) var count = 0

    func next() -> Int {
        count += 1
        return count
    }
}

extension DocumentStore {
    /// Whether every local update of the document is acknowledged, read after a flush:
    /// `hasUnacknowledgedWrites` alone answers false while a flush is committing (its
    /// buffer already taken, the new `lastLocalSequence` not yet written), so a test
    /// could see an edit "acknowledged" before it was even sent.
    func isAcknowledged(_ id: DocumentID) throws -> Bool {
        try flush()
        return try !hasUnacknowledgedWrites(id)
    }
}
