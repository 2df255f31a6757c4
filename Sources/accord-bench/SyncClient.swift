import AccordCRDT
import AccordNet
import Foundation

/// One simulated y-websocket client on a `WebSocketClientPool`, with an AccordCRDT `Doc`
/// holding the root text "text". It speaks the y-protocols sync exchange as y-websocket's
/// provider does: sends sync step 1 with its state vector on connect, answers the
/// server's step 1 with step 2, applies step 2 and updates, and sends each local
/// transaction's update (from `Doc.onUpdate`) as a sync update.
///
/// Text that remote updates insert goes to `onRemoteInsert` with the instant the message
/// arrived, so a load case can find the markers it typed and measure delivery latency.
final class SyncClient: @unchecked Sendable {
    // Invariant: `doc`, `text` and every `var` below are only touched with `lock` held.
    // Events arrive on the pool's service thread, edits and queries come from the
    // driving tasks; the critical sections are short and never wait.
    private let lock = NSLock()
    private let doc = Doc()
    private let text: YText
    private var socket: PooledWebSocket?
    /// Replies the server's step 1 asked for before `connect` returned the socket.
    private var unsent: [[UInt8]] = []
    private var receivedAt = ContinuousClock.now
    private var subscriptions: [Subscription] = []
    private var syncedAt: ContinuousClock.Instant?
    private var syncWaiter: CheckedContinuation<Bool, Never>?
    private var syncWaitExpired = false
    private var closeCode: UInt16?
    private var malformed = 0

    private static let remote: Origin = "remote"

    /// Throws only if the root cannot be made (never for a fresh document). It exists
    /// before any update arrives, so remote text lands in a type we observe.
    init(onRemoteInsert: (@Sendable (String, ContinuousClock.Instant) -> Void)? = nil) throws {
        text = try doc.getText(TraceReplay.rootName)
        subscriptions.append(
            doc.onUpdate { [unowned self] update, origin in
                guard origin != Self.remote else { return }
                self.sendLocked(ProtocolFrame.sync(.update(update)).encode())
            })
        if let onRemoteInsert {
            subscriptions.append(
                text.observe { [unowned self] event in
                    guard !event.isLocal else { return }
                    for case .insert(.text(let inserted), _) in event.delta {
                        onRemoteInsert(inserted, self.receivedAt)
                    }
                })
        }
    }

    /// Connects to `url` and starts the sync (step 1). Returns once the upgrade is done;
    /// use `waitSynced` for the server's step 2.
    func connect(_ pool: WebSocketClientPool, to url: String) async throws(NetError) {
        let socket = try await pool.connect(to: url) { [self] event in handle(event) }
        lock.withLock {
            self.socket = socket
            socket.send(ProtocolFrame.sync(.step1(stateVector: doc.encodeStateVector())).encode())
            for reply in unsent { socket.send(reply) }
            unsent = []
        }
    }

    /// Suspends until the server's step 2 has been applied (true) or `timeout` passed
    /// (false). One waiter at a time. Woken by the service thread, not by polling: ten
    /// thousand clients syncing would otherwise keep the concurrency pool busy checking.
    func waitSynced(timeout: Duration) async -> Bool {
        lock.withLock { syncWaitExpired = false }
        let expiry = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            self?.endSyncWait(false)
        }
        defer { expiry.cancel() }
        return await withCheckedContinuation { continuation in
            let ready: Bool? = lock.withLock {
                if syncedAt != nil { return true }
                if syncWaitExpired { return false }
                syncWaiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func endSyncWait(_ synced: Bool) {
        let waiter = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            if !synced { syncWaitExpired = true }
            defer { syncWaiter = nil }
            return syncWaiter
        }
        waiter?.resume(returning: synced)
    }

    /// When the server's step 2 had been applied (nil until then).
    var synced: ContinuousClock.Instant? { lock.withLock { syncedAt } }
    /// The close code once the connection ended.
    var closed: UInt16? { lock.withLock { closeCode } }
    /// Messages that did not decode as y-protocols frames or updates.
    var malformedMessages: Int { lock.withLock { malformed } }
    /// The text's length in UTF-16 units.
    var textLength: Int { lock.withLock { text.length } }

    /// Appends `string` to the text in one transaction; its update goes to the server.
    func append(_ string: String) throws {
        try lock.withLock { try text.insert(text.length, string) }
    }

    /// Sends bytes as they are (the cold-open upload sends a prepared update).
    func sendRaw(_ message: [UInt8]) {
        lock.withLock { sendLocked(message) }
    }

    func close() {
        lock.withLock { socket?.close() }
    }

    private func sendLocked(_ message: [UInt8]) {
        if let socket { socket.send(message) } else { unsent.append(message) }
    }

    /// Service thread.
    private func handle(_ event: WebSocketClient.Event) {
        let now = ContinuousClock.now
        let justSynced = lock.withLock { () -> Bool in
            switch event {
            case .message(let bytes):
                receivedAt = now
                let before = syncedAt
                receive(bytes)
                return before == nil && syncedAt != nil
            case .pong:
                return false
            case .closed(let code, _):
                closeCode = code
                return false
            }
        }
        if justSynced { endSyncWait(true) }
    }

    private func receive(_ bytes: [UInt8]) {
        do {
            guard case .sync(let message) = try ProtocolFrame.decode(bytes) else { return }  // awareness and the like
            switch message {
            case .step1(let stateVector):
                sendLocked(ProtocolFrame.sync(.step2(update: try doc.encodeStateAsUpdate(from: stateVector))).encode())
            case .step2(let update):
                try doc.applyUpdate(update, origin: Self.remote)
                if syncedAt == nil { syncedAt = .now }  // synced means applied
            case .update(let update):
                try doc.applyUpdate(update, origin: Self.remote)
            }
        } catch {
            malformed += 1
        }
    }
}
