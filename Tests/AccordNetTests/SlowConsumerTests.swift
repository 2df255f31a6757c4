import AccordTesting
import Foundation
import Testing

@testable import AccordNet

/// Issue 14 item 3: a peer that never reads must not make the server queue without end.
@Suite(.timeLimit(.minutes(1)))
struct SlowConsumerTests {
    static let cap = 256 * 1024

    /// Answers every message with `reply` bytes, like a sync server answering a tiny
    /// step 1 with a whole document.
    private func amplifier(log: EventLog<WebSocketServerEvent>, reply: Int) throws -> WebSocketServer {
        let answer = pattern(reply)
        return try WebSocketServer(
            .init(
                port: 0, maxQueuedBytes: Self.cap,
                onEvent: { event in
                    log.append(event)
                    if case .message(let connection, _) = event { connection.send(answer) }
                }))
    }

    @Test func aPeerThatNeverReadsIsClosedOnceItsQueuePassesTheCap() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try amplifier(log: log, reply: 64 * 1024)
        let reader = try await onThread { try StalledReader(port: server.port, path: "/stalled") }
        // 64 tiny requests ask for 4 MiB of answers, 16 times the cap.
        try await onThread { for index in 0..<64 { try reader.send([UInt8(index)]) } }
        let closed = try await log.wait("slow consumer closed") { events in
            events.lazy.compactMap { event -> (UInt16, String)? in
                if case .closed(_, let code, let reason) = event { (code, reason) } else { nil }
            }.first
        }
        #expect(closed.0 == 1008)
        #expect(closed.1 == WebSocketServer.slowConsumerReason)
        let outbound = server.outbound
        #expect(outbound.slowConsumerCloses == 1)
        #expect(outbound.peakConnectionBytes <= Self.cap, "queued \(outbound.peakConnectionBytes) bytes")
        #expect(outbound.peakConnectionBytes > 0)
        #expect(outbound.queuedBytes == 0)  // the closed connection holds nothing
        #expect(try await onThread { reader.readUntilClosed() })
        await server.stop()
    }

    @Test func aPeerStalledWithAHalfWrittenMessageIsDroppedAfterTheGraceEvenWhileItSends() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try WebSocketServer(.init(port: 0, maxQueuedBytes: Self.cap, onEvent: { log.append($0) }))
        let reader = try await onThread { try StalledReader(port: server.port, path: "/stalled") }
        let connection = try await log.wait("opened") { $0.lazy.compactMap(\.opened).first }
        // 16 MiB is more than the kernel's buffers take (Linux grows a send buffer to
        // 4 MiB at most): lws keeps the rest and the socket never becomes writable
        // again, so the close frame cannot go out and the grace timeout must end it.
        let huge = connection.send(pattern(16 << 20))
        _ = try await log.wait("lws holds part of it") { _ in connection.queuedBytes.now == 16 << 20 ? true : nil }
        for _ in 0..<8 { connection.send(pattern(64 * 1024)) }  // 512 KiB: twice the cap
        #expect(connection.isQueued(huge))  // in lws' buffer; the small ones are dropped
        // The peer keeps sending meanwhile, which must not keep it alive.
        while log.all.compactMap(\.closeCode).isEmpty {
            do {
                try await onThread { try reader.send([1]) }
            } catch {
                break  // the server dropped the connection under us
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let closed = try await log.wait("dropped") { events in
            events.lazy.compactMap { event -> (UInt16, String)? in
                if case .closed(_, let code, let reason) = event { (code, reason) } else { nil }
            }.first
        }
        #expect(closed.0 == 1008)
        #expect(closed.1 == WebSocketServer.slowConsumerReason)
        #expect(server.outbound.slowConsumerCloses == 1)
        #expect(server.outbound.queuedBytes == 0)
        #expect(!connection.isQueued(huge))
        await server.stop()
    }

    @Test func aReaderThatKeepsUpGetsMoreThanTheCapAndOneMessageLargerThanIt() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try WebSocketServer(
            .init(
                port: 0, maxQueuedBytes: Self.cap,
                onEvent: { event in
                    log.append(event)
                    if case .message(let connection, let bytes) = event { connection.send(bytes) }
                }))
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/echo")
        // 2 MiB in all, one message at a time: 8 times the cap, never more than a message queued.
        for index in 0..<16 {
            client.client.send(pattern(128 * 1024, seed: UInt8(index)))
            _ = try await client.log.wait("echo \(index)") { _ in client.messages.count > index ? true : nil }
        }
        // One message four times the cap: admitted, because nothing else that large waits.
        let big = pattern(4 * Self.cap, seed: 99)
        client.client.send(big)
        let echoed = try await client.log.wait("big echo") { _ in client.messages.count > 16 ? client.messages[16] : nil }
        #expect(echoed == big)
        let connection = try #require(log.all.lazy.compactMap(\.opened).first)
        _ = try await log.wait("queue drained") { _ in connection.queuedBytes.now == 0 ? true : nil }
        #expect(connection.queuedBytes.peak >= big.count)
        #expect(server.outbound.slowConsumerCloses == 0)
        #expect(log.all.compactMap(\.closeCode).isEmpty)
        client.client.close()
        _ = try await client.closed()
        await server.stop()
    }

    @Test func aTicketIsQueuedUntilTheKernelHasTheMessage() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try WebSocketServer(.init(port: 0, maxQueuedBytes: Self.cap, onEvent: { log.append($0) }))
        let reader = try await onThread { try StalledReader(port: server.port, path: "/stalled") }
        let stalled = try await log.wait("stalled opened") { $0.lazy.compactMap(\.opened).first }
        // Larger than any socket buffer a 4 KiB receive window lets the kernel grow.
        let ticket = stalled.send(pattern(8 << 20))
        try await Task.sleep(for: .milliseconds(200))
        #expect(stalled.isQueued(ticket))
        #expect(stalled.queuedBytes.now == 8 << 20)

        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/reader")
        let reading = try await log.wait("reader opened") { $0.compactMap(\.opened).dropFirst().first }
        let delivered = reading.send(pattern(8 << 20))
        _ = try await client.log.wait("delivered") { _ in client.messages.first }
        #expect(!reading.isQueued(delivered))
        #expect(reading.queuedBytes.now == 0)
        _ = reader
        client.client.close()
        _ = try await client.closed()
        await server.stop()
    }
}
