import AccordCRDT
import AccordNet
import AccordStore
import Foundation
@testable import AccordServer

/// A sync client for tests, speaking the protocol over a real WebSocket: y-websocket
/// framing on `/v1/sync/{id}` or multiplexed on `/v1/sync`. It keeps one `Doc` per
/// document, answers the server's sync step 1, applies what arrives, and records every
/// Accord message and awareness update. Thread-safe: a lock guards the docs and logs.
final class SyncTestClient: @unchecked Sendable {
    struct Closed: Equatable { var code: UInt16; var reason: String }

    let endpoint: SyncEndpoint
    private let socket: WebSocketClient
    private let lock = NSLock()
    private var docs: [DocumentID: Doc] = [:]
    private var subscriptions: [Subscription] = []
    private var messages: [(document: DocumentID?, message: AccordMessage)] = []
    private var awareness: [(document: DocumentID?, update: [UInt8])] = []
    private var authFrames: [AuthMessage] = []
    private var received: [(document: DocumentID?, frame: ProtocolFrame)] = []
    private var closedWith: Closed?
    private var nextSequence: UInt64 = 1
    /// When true, local edits go out as Accord `update` messages (acked); else as sync updates.
    var sendsAccordUpdates = false

    static let remote = Origin("test.remote")

    private init(endpoint: SyncEndpoint, socket: WebSocketClient) {
        self.endpoint = endpoint
        self.socket = socket
    }

    /// Connects to `/v1/sync/{document}` (or `/v1/sync` when `document` is nil) with
    /// the token in the query, or no token. `opens: false` sends nothing on its own
    /// (no Doc, no sync step 1), for tests that script every frame. On `/v1/sync/{id}`
    /// the client asks for Accord's messages (`accord=1`) unless `accordMessages` is
    /// false, which makes it a stock y-protocols client.
    static func connect(
        port: Int, document: DocumentID?, token: String?, header: Bool = false, opens: Bool = true,
        accordMessages: Bool = true
    ) async throws -> SyncTestClient {
        var path = document.map { "/v1/sync/" + ($0.rawValue.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "") }
            ?? "/v1/sync"
        var query: [String] = []
        var headers: [(name: String, value: String)] = []
        if let token {
            if header { headers.append(("Authorization", "Bearer \(token)")) } else { query.append("token=\(token)") }
        }
        if document != nil, accordMessages { query.append("\(SyncDialect.queryParameter)=1") }
        if !query.isEmpty { path += "?" + query.joined(separator: "&") }
        let socket = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)\(path)", headers: headers)
        let client = SyncTestClient(endpoint: document.map { .document($0) } ?? .multiplexed, socket: socket)
        if let document, opens { client.open(document) }
        let events = socket.events
        Task {
            for await event in events { client.handle(event) }
        }
        return client
    }

    /// Starts syncing `document`: a fresh Doc, and our sync step 1.
    func open(_ document: DocumentID, clientID: ClientID? = nil) {
        lock.lock()
        let doc = docs[document] ?? Doc(clientID: clientID)
        if docs[document] == nil {
            docs[document] = doc
            subscriptions.append(doc.onUpdate { [unowned self] update, origin in
                guard origin != Self.remote else { return }
                sendLocal(update, document: document)  // runs under the lock (inside edit)
            })
        }
        let stepOne = ProtocolFrame.sync(.step1(stateVector: doc.encodeStateVector()))
        lock.unlock()
        send(stepOne, document: document)
    }

    /// Runs `body` on the document under the lock; its edits are sent.
    func edit<T>(_ document: DocumentID, _ body: (Doc) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(docs[document]!)
    }

    func text(_ document: DocumentID, _ name: String = "t") -> String {
        edit(document) { (try? $0.getText(name).string) ?? "" }
    }

    func state(_ document: DocumentID) -> [UInt8] { edit(document) { $0.encodeStateAsUpdate() } }

    func send(_ frame: ProtocolFrame, document: DocumentID?) {
        socket.send(endpoint.encode(frame, document: document))
    }

    func sendRaw(_ bytes: [UInt8]) { socket.send(bytes) }
    func close() { socket.close() }

    private func sendLocal(_ update: [UInt8], document: DocumentID) {
        if sendsAccordUpdates {
            let sequence = nextSequence
            nextSequence += 1
            let frame = try! AccordMessage.update(documentID: document.rawValue, sequence: sequence, bytes: update).frame()
            socket.send(endpoint.encode(frame, document: document))
        } else {
            socket.send(endpoint.encode(.sync(.update(update)), document: document))
        }
    }

    private func handle(_ event: WebSocketClient.Event) {
        switch event {
        case .message(let bytes): receive(bytes)
        case .pong: break
        case .closed(let code, let reason):
            lock.lock()
            closedWith = Closed(code: code, reason: reason)
            lock.unlock()
        }
    }

    private func receive(_ bytes: [UInt8]) {
        guard let (document, frame) = try? endpoint.decode(bytes) else { return }
        lock.lock()
        defer { lock.unlock() }
        let doc = document.flatMap { docs[$0] }
        received.append((document, frame))
        switch frame {
        case .sync(.step1(let stateVector)):
            guard let doc, let missing = try? doc.encodeStateAsUpdate(from: stateVector) else { return }
            socket.send(endpoint.encode(.sync(.step2(update: missing)), document: document))
        case .sync(.step2(let update)), .sync(.update(let update)):
            try? doc?.applyUpdate(update, origin: Self.remote)
        case .awareness(let update):
            awareness.append((document, update))
        case .auth(let message):
            authFrames.append(message)
        case .custom(AccordMessage.frameType, _):
            if let message = try? AccordMessage.decode(frame: frame) { messages.append((document, message)) }
        default:
            break
        }
    }

    // MARK: Observations

    var accordMessages: [AccordMessage] { lock.withLock { messages.map(\.message) } }
    var errors: [(code: String, document: String?)] {
        accordMessages.compactMap { if case .error(let code, _, let document) = $0 { (code, document) } else { nil } }
    }
    var errorCodes: [String] { errors.map(\.code) }
    var acks: [UInt64] {
        accordMessages.compactMap { if case .ack(_, let through) = $0 { through } else { nil } }
    }
    var broadcasts: [AccordMessage] { accordMessages.filter { if case .broadcast = $0 { true } else { false } } }
    var awarenessUpdates: [[UInt8]] { lock.withLock { awareness.map(\.update) } }
    var auth: [AuthMessage] { lock.withLock { authFrames } }
    var closed: Closed? { lock.withLock { closedWith } }
    /// Every frame received, decoded, in order (Accord messages included).
    var frames: [(document: DocumentID?, frame: ProtocolFrame)] { lock.withLock { received } }
}

/// Polls `condition` until it holds or `timeout` passes (then throws, naming `what`).
func eventually(
    _ what: String, timeout: Duration = .seconds(10), _ condition: () throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(5))
    }
}
