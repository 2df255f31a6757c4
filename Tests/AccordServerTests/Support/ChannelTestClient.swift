import AccordCRDT
import AccordNet
import Foundation

/// A lightweight `/v1/sync` client for channel tests: a connection on a shared
/// `WebSocketClientPool` (one service thread for hundreds of them) that sends channel
/// messages and records what comes back. Thread-safe: a lock guards the logs.
final class ChannelTestClient: @unchecked Sendable {
    let name: String
    private let socket: PooledWebSocket
    private let log: Log

    private final class Log: @unchecked Sendable {
        let lock = NSLock()
        var counts: [ChannelKey: UInt64] = [:]
        var countMessages = 0
        var broadcasts: [ChannelMessage] = []
        var errors: [(key: ChannelKey, code: String)] = []
        var hello = false
        var closed: UInt16?
    }

    private init(name: String, socket: PooledWebSocket, log: Log) {
        self.name = name
        self.socket = socket
        self.log = log
    }

    /// Connects to `ws://127.0.0.1:<port>/v1/sync?token=…` and waits for the hello.
    static func connect(
        _ name: String, pool: WebSocketClientPool, port: Int, token: String, waitForHello: Bool = true
    ) async throws -> ChannelTestClient {
        let log = Log()
        let socket = try await pool.connect(to: "ws://127.0.0.1:\(port)/v1/sync?token=\(token)") { event in
            switch event {
            case .message(let bytes): Self.receive(bytes, into: log)
            case .pong: break
            case .closed(let code, _): log.lock.withLock { log.closed = code }
            }
        }
        let client = ChannelTestClient(name: name, socket: socket, log: log)
        if waitForHello { try await eventually("hello for \(name)") { log.lock.withLock { log.hello } } }
        return client
    }

    private static func receive(_ bytes: [UInt8], into log: Log) {
        guard let frame = try? MultiplexedFrame.decode(bytes), frame.documentID == nil else { return }
        log.lock.withLock {
            switch frame.accordMessage {
            case .hello?: log.hello = true
            case .channel(let message)?:
                switch message {
                case .count(let key, let sessions):
                    log.counts[key] = sessions
                    log.countMessages += 1
                case .broadcast: log.broadcasts.append(message)
                case .error(let key, let code, _): log.errors.append((key, code))
                default: break
                }
            default: break
            }
        }
    }

    func send(_ message: ChannelMessage) {
        socket.send(try! MultiplexedFrame(AccordMessage.channel(message)).encode())
    }

    func attach(_ key: String, realtime: Bool = true) { send(.attach(key: ChannelKey(rawValue: key)!, realtime: realtime)) }
    func detach(_ key: String) { send(.detach(key: ChannelKey(rawValue: key)!)) }
    func sync(_ key: String) { send(.sync(key: ChannelKey(rawValue: key)!)) }
    func broadcast(_ key: String, topic: String, payload: String) {
        send(.broadcast(key: ChannelKey(rawValue: key)!, topic: topic, payload: payload, sender: nil))
    }
    func sendRaw(_ bytes: [UInt8]) { socket.send(bytes) }
    func close() { socket.close() }

    /// The last count received for `key` (nil: none yet).
    func count(_ key: String) -> UInt64? { log.lock.withLock { log.counts[ChannelKey(rawValue: key)!] } }
    var countMessages: Int { log.lock.withLock { log.countMessages } }
    var broadcasts: [ChannelMessage] { log.lock.withLock { log.broadcasts } }
    var errors: [(key: ChannelKey, code: String)] { log.lock.withLock { log.errors } }
    var closed: UInt16? { log.lock.withLock { log.closed } }
}
