import AccordCRDT
import AccordNet
import AccordStore
import Foundation

/// A client that behaves as y-websocket's `WebsocketProvider` (y-websocket 2, y-protocols
/// 1.0.7) does, with a real engine `Doc` and `Awareness`, on `/v1/sync/{id}` without
/// asking for Accord's messages:
/// - on open it sends sync step 1, then its awareness entry if it has a state (under
///   the clock it has, not a new one);
/// - it answers step 1 with step 2, applies step 2 and updates, and sends its own edits;
/// - every awareness update it receives is applied and the entries that changed are
///   sent back to the server (y-websocket's update handler has no origin filter), which
///   also answers a removal of its own state with that state under a newer clock;
/// - a query awareness is answered with every state it holds;
/// - when its socket drops it forgets the others' states and reconnects after 100 ms
///   (y-websocket's first backoff) with the same `Doc`, so the same client id.
/// Any frame whose outer type is not 0–3 is recorded in ``foreignFrames``: a stock
/// client cannot parse it. Its 15 s renewal is not modelled (tests run shorter).
final class YWebsocketTestClient: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: every var is touched only under `lock`.
    private let lock = NSLock()
    private let url: String
    let doc: Doc
    private var awarenessState: Awareness
    private var socket: WebSocketClient?
    private var generation = 0
    private var subscription: Subscription?
    private var foreign: [[UInt8]] = []
    private var authMessages: [AuthMessage] = []
    private let start = ContinuousClock.now

    static let remote = Origin("y-websocket.remote")

    private init(url: String, clientID: ClientID) {
        self.url = url
        doc = Doc(clientID: clientID)
        awarenessState = Awareness(localClientID: clientID, now: 0)
        awarenessState.setLocalState(nil, now: 0)
    }

    /// Connects to `/v1/sync/{document}?token=…` on `port`.
    static func connect(port: Int, document: DocumentID, token: String, clientID: ClientID) async throws -> YWebsocketTestClient {
        let client = YWebsocketTestClient(url: "ws://127.0.0.1:\(port)/v1/sync/\(document.rawValue)?token=\(token)", clientID: clientID)
        client.subscription = client.doc.onUpdate { [unowned client] update, origin in
            guard origin != Self.remote else { return }
            client.socket?.send(ProtocolFrame.sync(.update(update)).encode())  // under the lock (inside edit)
        }
        try await client.open()
        return client
    }

    /// Milliseconds since the client was made (Awareness only compares differences).
    private var now: UInt64 { UInt64((ContinuousClock.now - start) / .milliseconds(1)) }

    private func open() async throws {
        let socket = try await WebSocketClient.connect(to: url)
        let events = socket.events
        let generation = lock.withLock {
            self.socket = socket
            self.generation += 1
            socket.send(ProtocolFrame.sync(.step1(stateVector: doc.encodeStateVector())).encode())
            if awarenessState.localState != nil {
                socket.send(ProtocolFrame.awareness(awarenessState.encodeUpdate(clients: [doc.clientID])).encode())
            }
            return self.generation
        }
        Task {
            for await event in events {
                switch event {
                case .message(let bytes): self.receive(bytes)
                case .pong: break
                case .closed: await self.dropped(generation)
                }
            }
        }
    }

    /// The socket dropped: forget the others, reconnect after 100 ms (unless stopped).
    private func dropped(_ generation: Int) async {
        let reconnect = lock.withLock { () -> Bool in
            guard generation == self.generation, socket != nil else { return false }
            socket = nil
            let others = awarenessState.states.keys.filter { $0 != doc.clientID }
            awarenessState.removeStates(clients: others, now: now)
            return true
        }
        guard reconnect else { return }
        try? await Task.sleep(for: .milliseconds(100))
        try? await open()
    }

    private func receive(_ bytes: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        guard let frame = try? ProtocolFrame.decode(bytes), (0...3).contains(frame.type) else {
            foreign.append(bytes)
            return
        }
        switch frame {
        case .sync(.step1(let stateVector)):
            if let missing = try? doc.encodeStateAsUpdate(from: stateVector) {
                socket?.send(ProtocolFrame.sync(.step2(update: missing)).encode())
            }
        case .sync(.step2(let update)), .sync(.update(let update)):
            try? doc.applyUpdate(update, origin: Self.remote)
        case .awareness(let update):
            guard let change = try? awarenessState.apply(encoded: update, now: now), change.isUpdate else { return }
            socket?.send(ProtocolFrame.awareness(awarenessState.encodeUpdate(clients: change.clients)).encode())
        case .queryAwareness:
            socket?.send(ProtocolFrame.awareness(awarenessState.encodeAllStates()).encode())
        case .auth(let message):
            authMessages.append(message)
        default:
            break
        }
    }

    // MARK: Acting

    /// Sets our awareness state and sends our entry (`awareness.setLocalState`).
    func setState(_ state: AnyValue) {
        lock.withLock {
            awarenessState.setLocalState(state, now: now)
            socket?.send(ProtocolFrame.awareness(awarenessState.encodeUpdate(clients: [doc.clientID])).encode())
        }
    }

    func edit(_ body: (Doc) throws -> Void) rethrows {
        try lock.withLock { try body(doc) }
    }

    /// Drops the socket as a network failure would; the client reconnects by itself.
    func drop() { lock.withLock { socket }?.close(code: 1001, reason: "dropped") }

    /// Closes for good (no reconnect).
    func stop() {
        let socket = lock.withLock { () -> WebSocketClient? in
            defer { self.socket = nil }
            return self.socket
        }
        socket?.close()
    }

    // MARK: Observing

    var clientID: ClientID { doc.clientID }
    var states: [ClientID: AnyValue] { lock.withLock { awarenessState.states } }
    var text: String { text("t") }
    func text(_ name: String) -> String { lock.withLock { (try? doc.getText(name).string) ?? "" } }
    var foreignFrames: [[UInt8]] { lock.withLock { foreign } }
    var auth: [AuthMessage] { lock.withLock { authMessages } }
    var isConnected: Bool { lock.withLock { socket != nil } }
}
