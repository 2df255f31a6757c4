import AccordCRDT
import AccordNet
import AccordServer
import AccordStore
import AccordTesting
import Foundation

/// `channel_fanout` of `accord-bench collab`: one channel, `clients` connections on
/// `/v1/sync` all attached realtime, one of them broadcasting `broadcasts` messages
/// (`rate` a second); every broadcast goes to the other `clients - 1`. Reports the
/// send-to-receipt latency (p50/p99/max over every delivery) and checks that each
/// message reached each receiver exactly once.
///
/// The server runs in this process (its own queue and network thread, a store in a
/// temporary directory); the clients share one `WebSocketClientPool` service thread,
/// so the figures include the clients' decoding on a single thread.
struct ChannelFanoutCase {
    var clients = 500
    var broadcasts = 100
    var rate = 50

    func run() async throws -> BenchRecord {
        let directory = try TemporaryDirectory(prefix: "accord-channel-bench")
        let documents = try DocumentStore(path: directory.file("server.sqlite"))
        let tokens = try TokenAuthority(secret: Array("accord-bench-channel-secret-0123456789".utf8))
        var configuration = AccordServer.Configuration()
        configuration.maxConnectionsPerUser = clients + 10
        configuration.maxConnectionsPerAddress = 0
        let server = try AccordServer(configuration: configuration, documents: documents, tokens: tokens)
        let url = "ws://127.0.0.1:\(server.port)/v1/sync?token=\(tokens.mint(subject: "bench", ttl: 3600))"
        let pool = try WebSocketClientPool(name: "channel-bench")
        let book = LatencyBook()
        let receipts = ReceiptCounter(clients: clients)
        let key = ChannelKey(rawValue: "bench.fanout")!
        let attach = try MultiplexedFrame(AccordMessage.channel(.attach(key: key, realtime: true))).encode()

        var sockets: [PooledWebSocket] = []
        for index in 0..<clients {
            let socket = try await pool.connect(to: url) { event in
                guard case .message(let bytes) = event else { return }
                let now = ContinuousClock.now
                guard let frame = try? MultiplexedFrame.decode(bytes), case .channel(let message)? = frame.accordMessage
                else { return }
                switch message {
                case .count(_, let sessions): receipts.counted(index, sessions)
                case .broadcast(_, _, let payload, _):
                    book.received(payload, at: now)
                    receipts.received(index, payload)
                default: break
                }
            }
            socket.send(attach)
            sockets.append(socket)
        }
        // Everyone attached once the last one's answer counts them all.
        let deadline = ContinuousClock.now + .seconds(60)
        while !receipts.everyoneSees(UInt64(clients)) {
            guard ContinuousClock.now < deadline else { throw BenchFailure("channel_fanout: attaches did not complete") }
            try await Task.sleep(for: .milliseconds(20))
        }

        let sender = sockets[0]
        let interval = Duration.seconds(1) / rate
        var next = ContinuousClock.now
        for _ in 0..<broadcasts {
            try await Task.sleep(until: next, clock: .continuous)
            let payload = "\"" + book.stamp() + "\""
            sender.send(try MultiplexedFrame(AccordMessage.channel(
                .broadcast(key: key, topic: "tick", payload: payload, sender: nil))).encode())
            next += interval
        }
        let expected = broadcasts * (clients - 1)
        let drainEnd = ContinuousClock.now + .seconds(10)
        while book.delivered < expected, ContinuousClock.now < drainEnd { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(200))  // room for duplicates to show up

        await pool.stop()
        try await server.stop()
        try documents.close()

        var record = BenchRecord(name: "channel_fanout", engine: "accord")
        record["clients"] = BenchRecord.int(clients)
        record["broadcasts"] = BenchRecord.int(broadcasts)
        record["rate_per_s"] = BenchRecord.int(rate)
        record.setDeliveries(book, expected: expected)
        record["max_ms"] = BenchRecord.rounded(book.percentile(1))
        record["exactly_once"] = .bool(receipts.exactlyOnce(broadcasts: broadcasts, sender: 0))
        record["target_p99_ms"] = BenchRecord.int(50)
        return record
    }
}

/// What each client received: counts, and how often each payload, to check that every
/// broadcast reached every receiver exactly once. Written on the pool's thread.
private final class ReceiptCounter: @unchecked Sendable {
    // Invariant: the arrays are only touched with `lock` held.
    private let lock = NSLock()
    private var lastCount: [UInt64]
    private var payloads: [[String: Int]]

    init(clients: Int) {
        lastCount = Array(repeating: 0, count: clients)
        payloads = Array(repeating: [:], count: clients)
    }

    func counted(_ client: Int, _ sessions: UInt64) { lock.withLock { lastCount[client] = sessions } }
    func received(_ client: Int, _ payload: String) { lock.withLock { payloads[client][payload, default: 0] += 1 } }

    func everyoneSees(_ sessions: UInt64) -> Bool { lock.withLock { lastCount.allSatisfy { $0 == sessions } } }

    func exactlyOnce(broadcasts: Int, sender: Int) -> Bool {
        lock.withLock {
            payloads.indices.allSatisfy { client in
                client == sender
                    ? payloads[client].isEmpty
                    : payloads[client].count == broadcasts && payloads[client].values.allSatisfy { $0 == 1 }
            }
        }
    }
}
