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
    var rate = 20

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
                // Only the instant is taken here: all 500 connections share the pool's one
                // thread, so decoding each receipt on it would add the decoding of every
                // earlier receiver to the later ones' latency (a real client decodes
                // only its own copy). Messages are decoded after the run.
                receipts.arrived(index, bytes, at: ContinuousClock.now)
            }
            socket.send(attach)
            sockets.append(socket)
        }
        // Everyone attached once the last one's answer counts them all.
        let deadline = ContinuousClock.now + .seconds(60)
        while !receipts.everyoneSees(UInt64(clients), book: book) {
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
        while receipts.broadcastsArrived(book: book) < expected, ContinuousClock.now < drainEnd {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(200))  // room for duplicates to show up
        _ = receipts.broadcastsArrived(book: book)

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
/// broadcast reached every receiver exactly once. Receipts are stored raw on the pool's
/// thread and decoded (their instants handed to the ``LatencyBook``) when asked.
private final class ReceiptCounter: @unchecked Sendable {
    // Invariant: every `var` is only touched with `lock` held.
    private let lock = NSLock()
    private var raw: [(client: Int, bytes: [UInt8], at: ContinuousClock.Instant)] = []
    private var lastCount: [UInt64]
    private var payloads: [[String: Int]]
    private var broadcasts = 0

    init(clients: Int) {
        lastCount = Array(repeating: 0, count: clients)
        payloads = Array(repeating: [:], count: clients)
        raw.reserveCapacity(1 << 16)
    }

    func arrived(_ client: Int, _ bytes: [UInt8], at instant: ContinuousClock.Instant) {
        lock.withLock { raw.append((client, bytes, instant)) }
    }

    /// Decodes what arrived since the last call; returns the broadcasts so far.
    func broadcastsArrived(book: LatencyBook) -> Int {
        let pending = lock.withLock { () -> [(client: Int, bytes: [UInt8], at: ContinuousClock.Instant)] in
            defer { raw.removeAll(keepingCapacity: true) }
            return raw
        }
        for receipt in pending {
            guard let frame = try? MultiplexedFrame.decode(receipt.bytes), case .channel(let message)? = frame.accordMessage
            else { continue }
            switch message {
            case .count(_, let sessions):
                lock.withLock { lastCount[receipt.client] = sessions }
            case .broadcast(_, _, let payload, _):
                book.received(payload, at: receipt.at)
                lock.withLock {
                    payloads[receipt.client][payload, default: 0] += 1
                    broadcasts += 1
                }
            default:
                break
            }
        }
        return lock.withLock { broadcasts }
    }

    func everyoneSees(_ sessions: UInt64, book: LatencyBook) -> Bool {
        _ = broadcastsArrived(book: book)
        return lock.withLock { lastCount.allSatisfy { $0 == sessions } }
    }

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
