import Foundation
import Testing

@testable import AccordNet

/// A server that echoes every message back and logs its events.
private func echoServer(
    log: EventLog<WebSocketServerEvent>, customHeaders: [String] = [], maxMessageSize: Int = 64 << 20,
    closeOnOversizedMessage: Bool = true, shouldUpgrade: @escaping @Sendable (HTTPRequest) -> Bool = { _ in true }
) throws -> WebSocketServer {
    try WebSocketServer(
        .init(
            port: 0, customHeaders: customHeaders, maxMessageSize: maxMessageSize,
            closeOnOversizedMessage: closeOnOversizedMessage, shouldUpgrade: shouldUpgrade,
            onEvent: { event in
                log.append(event)
                if case .message(let connection, let bytes) = event { connection.send(bytes) }
            }))
}

@Suite(.timeLimit(.minutes(1)))
struct WebSocketTests {
    @Test func echoesBinaryFramesOfEverySize() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try echoServer(log: log)
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/echo")
        let sizes = [0, 1, 125, 126, 65535, 65536, 1 << 20]
        for (index, size) in sizes.enumerated() {
            let message = pattern(size, seed: UInt8(index))
            client.client.send(message)
            let echoed = try await client.log.wait("echo of \(size) bytes") { _ in
                client.messages.count > index ? client.messages[index] : nil
            }
            #expect(echoed.count == size)
            #expect(echoed == message, "size \(size)")
        }
        client.client.close()
        #expect(try await client.closed().code == 1000)
        let serverClose = try await log.wait("server closed") { $0.lazy.compactMap(\.closeCode).first }
        #expect(serverClose == 1000)
        await server.stop()
    }

    @Test func upgradeHandlerSeesPathQueryAndHeaders() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let seen = EventLog<HTTPRequest>()
        let server = try echoServer(log: log, customHeaders: ["X-Accord-Client"]) { request in
            seen.append(request)
            return true
        }
        let client = try await RecordedClient.connect(
            "ws://127.0.0.1:\(server.port)/v1/sync/doc-1?token=x&mode=ro",
            headers: [("Authorization", "Bearer abc.def"), ("X-Accord-Client", "42")])
        let request = try #require(seen.all.first)
        #expect(request.path == "/v1/sync/doc-1")
        #expect(request.queryValue("token") == "x")
        #expect(request.queryValue("mode") == "ro")
        #expect(request.header("Authorization") == "Bearer abc.def")
        #expect(request.header("x-accord-client") == "42")
        let opened = try await log.wait("opened") { $0.lazy.compactMap(\.opened).first }
        #expect(opened.request.path == "/v1/sync/doc-1")
        #expect(opened.request.header("authorization") == "Bearer abc.def")
        client.client.close()
        _ = try await client.closed()
        await server.stop()
    }

    @Test func refusedUpgradeFailsTheConnect() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try echoServer(log: log) { $0.queryValue("token") == "good" }
        await #expect(throws: NetError.self) {
            _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/x?token=bad")
        }
        let good = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/x?token=good")
        good.client.close()
        _ = try await good.closed()
        #expect(log.all.compactMap(\.opened).count == 1)
        await server.stop()
    }

    @Test func serverCloseCodeReachesTheClient() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try WebSocketServer(
            .init(onEvent: { event in
                log.append(event)
                if case .opened(let connection) = event {
                    connection.send([1, 2, 3])
                    connection.close(code: 4401, reason: "unauthorized")
                }
            }))
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/room")
        let closed = try await client.closed()
        #expect(closed.code == 4401)
        #expect(closed.reason == "unauthorized")
        #expect(client.messages == [[1, 2, 3]], "messages queued before the close are delivered")
        let serverClose = try await log.wait("server closed") { $0.lazy.compactMap(\.closeCode).first }
        #expect(serverClose == 4401)
        await server.stop()
    }

    @Test func clientCloseCodeReachesTheServer() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try echoServer(log: log)
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/")
        client.client.close(code: 4000, reason: "bye")
        #expect(try await client.closed().code == 4000)
        let serverClose = try await log.wait("server closed") { events in
            for case .closed(_, let code, let reason) in events { return (code, reason) }
            return nil
        }
        #expect(serverClose.0 == 4000)
        #expect(serverClose.1 == "bye")
        await server.stop()
    }

    @Test func pingGetsPong() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try echoServer(log: log)
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/")
        client.client.ping([9, 8, 7])
        let pong = try await client.log.wait("pong") { events in
            for case .pong(let payload) in events { return payload }
            return nil
        }
        #expect(pong == [9, 8, 7])
        client.client.close()
        _ = try await client.closed()
        await server.stop()
    }

    @Test func oversizedMessageClosesWith1009() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try echoServer(log: log, maxMessageSize: 1000)
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/")
        client.client.send(pattern(1000))
        _ = try await client.log.wait("echo") { _ in client.messages.first }
        client.client.send(pattern(1001))
        #expect(try await client.closed().code == 1009)
        #expect(log.all.contains { if case .messageTooLarge = $0 { true } else { false } })
        await server.stop()
    }

    @Test func stopWithAGracePeriodLetsQueuedClosesGoOut() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try echoServer(log: log)
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/")
        let connection = try await log.wait("opened") { $0.lazy.compactMap(\.opened).first }
        connection.close(code: 1001, reason: "going away")
        await server.stop(gracePeriod: .seconds(2))
        #expect(try await client.closed().code == 1001)
    }

    @Test func oversizedMessageCanBeReportedWithoutClosing() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try echoServer(log: log, maxMessageSize: 1000, closeOnOversizedMessage: false)
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/")
        client.client.send(pattern(5000))
        client.client.send(pattern(10, seed: 3))
        let echoed = try await client.log.wait("echo after the oversized message") { _ in client.messages.first }
        #expect(echoed == pattern(10, seed: 3))
        #expect(log.all.filter { if case .messageTooLarge = $0 { true } else { false } }.count == 1)
        client.client.close()
        _ = try await client.closed()
        await server.stop()
    }

    /// Messages carry (sender, sequence); every sender's messages must arrive, in order.
    private static func checkPerSenderOrder(_ messages: [[UInt8]], senders: Int, perSender: Int) {
        #expect(messages.count == senders * perSender)
        var next = [Int](repeating: 0, count: senders)
        for message in messages {
            let sender = Int(message[0])
            let sequence = Int(message[1]) << 8 | Int(message[2])
            #expect(sequence == next[sender], "sender \(sender)")
            next[sender] = sequence + 1
            #expect(message.count == 3 + sequence % 300, "length of \(sender)/\(sequence)")
        }
        #expect(next == [Int](repeating: perSender, count: senders))
    }

    private static func tagged(_ sender: Int, _ sequence: Int) -> [UInt8] {
        [UInt8(sender), UInt8(sequence >> 8), UInt8(sequence & 0xFF)] + pattern(sequence % 300)
    }

    @Test func serverSendsFromManyThreadsArriveInPerSenderOrder() async throws {
        let senders = 8
        let perSender = 400
        let server = try WebSocketServer(
            .init(onEvent: { event in
                guard case .opened(let connection) = event else { return }
                for sender in 0..<senders {
                    Thread {
                        for sequence in 0..<perSender { connection.send(Self.tagged(sender, sequence)) }
                    }.start()
                }
            }))
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/")
        let messages = try await client.log.wait("all messages") { _ in
            client.messages.count >= senders * perSender ? client.messages : nil
        }
        Self.checkPerSenderOrder(messages, senders: senders, perSender: perSender)
        client.client.close()
        _ = try await client.closed()
        await server.stop()
    }

    @Test func clientSendsFromManyThreadsArriveInPerSenderOrder() async throws {
        let senders = 8
        let perSender = 400
        let log = EventLog<WebSocketServerEvent>()
        let server = try WebSocketServer(.init(onEvent: { log.append($0) }))
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/")
        let sender = client.client
        for index in 0..<senders {
            Thread {
                for sequence in 0..<perSender { sender.send(Self.tagged(index, sequence)) }
            }.start()
        }
        let messages = try await log.wait("all messages") { events in
            let messages = events.compactMap(\.message)
            return messages.count >= senders * perSender ? messages : nil
        }
        Self.checkPerSenderOrder(messages, senders: senders, perSender: perSender)
        client.client.close()
        _ = try await client.closed()
        await server.stop()
    }

    @Test func manyClientsAtOnceEachGetTheirOwnEchoes() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try echoServer(log: log)
        let port = server.port
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<12 {
                group.addTask {
                    let client = try await RecordedClient.connect("ws://127.0.0.1:\(port)/c\(index)")
                    let messages = (0..<20).map { pattern(100 + $0 * 37, seed: UInt8(index)) }
                    for message in messages { client.client.send(message) }
                    let echoed = try await client.log.wait("echoes of client \(index)") { _ in
                        client.messages.count >= messages.count ? client.messages : nil
                    }
                    #expect(echoed == messages, "client \(index)")
                    client.client.close()
                    _ = try await client.closed()
                }
            }
            try await group.waitForAll()
        }
        let paths = Set(log.all.compactMap(\.opened).map(\.request.path))
        #expect(paths == Set((0..<12).map { "/c\($0)" }))
        await server.stop()
    }

    @Test func connectToClosedPortFails() async throws {
        // Held by a socket that does not listen, so no server of a test running in
        // parallel can take the port (a stopped server's port could be reused at once).
        let (holder, port) = try boundSocket(listening: false)
        defer { close(holder) }
        await #expect(throws: NetError.self) {
            _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/")
        }
    }
}
