import Foundation
import Testing

@testable import AccordNet

/// One pooled connection with its events collected.
private struct PooledClient: Sendable {
    let socket: PooledWebSocket
    let log: EventLog<WebSocketClient.Event>

    static func connect(
        _ pool: WebSocketClientPool, _ url: String, headers: [(name: String, value: String)] = []
    ) async throws -> PooledClient {
        let log = EventLog<WebSocketClient.Event>()
        let socket = try await pool.connect(to: url, headers: headers) { log.append($0) }
        return PooledClient(socket: socket, log: log)
    }

    var messages: [[UInt8]] {
        log.all.compactMap { if case .message(let bytes) = $0 { bytes } else { nil } }
    }

    func closed() async throws -> (code: UInt16, reason: String) {
        try await log.wait("pooled connection \(socket.id) closed") { events in
            for case .closed(let code, let reason) in events { return (code, reason) }
            return nil
        }
    }
}

/// An echo server that logs its events.
private func echoServer(
    log: EventLog<WebSocketServerEvent>, shouldUpgrade: @escaping @Sendable (HTTPRequest) -> Bool = { _ in true }
) throws -> WebSocketServer {
    try WebSocketServer(
        .init(
            customHeaders: ["X-Accord-Client"], shouldUpgrade: shouldUpgrade,
            onEvent: { event in
                log.append(event)
                if case .message(let connection, let bytes) = event { connection.send(bytes) }
            }))
}

@Suite(.timeLimit(.minutes(1)))
struct WebSocketClientPoolTests {
    @Test func twoHundredConnectionsEchoOnOneThreadAndCloseWithTheirCodes() async throws {
        let serverLog = EventLog<WebSocketServerEvent>()
        let server = try echoServer(log: serverLog)
        let pool = try WebSocketClientPool(name: "PoolTests.echo")
        let count = 200
        let url = "ws://127.0.0.1:\(server.port)"
        let clients = try await withThrowingTaskGroup(of: (Int, PooledClient).self) { group in
            for index in 0..<count {
                group.addTask { (index, try await PooledClient.connect(pool, "\(url)/c\(index)")) }
            }
            var clients = [PooledClient?](repeating: nil, count: count)
            for try await (index, client) in group { clients[index] = client }
            return clients.compactMap { $0 }
        }
        #expect(clients.count == count)
        #expect(Set(clients.map(\.socket.id)).count == count, "IDs are unique")
        // The client can see the upgrade done before the server thread reports `opened`.
        let paths = try await serverLog.wait("server opened \(count)") { events in
            let opened = events.compactMap(\.opened)
            return opened.count >= count ? Set(opened.map(\.request.path)) : nil
        }
        #expect(paths == Set((0..<count).map { "/c\($0)" }))

        // Echo round trips on every connection; each must get back exactly its own messages.
        let sent = (0..<count).map { index in (0..<3).map { pattern(10 + index + $0 * 200, seed: UInt8(index & 0xFF)) } }
        for (index, client) in clients.enumerated() {
            for message in sent[index] { client.socket.send(message) }
        }
        for (index, client) in clients.enumerated() {
            let echoed = try await client.log.wait("echoes of \(index)") { _ in
                client.messages.count >= 3 ? client.messages : nil
            }
            #expect(echoed == sent[index], "connection \(index)")
        }

        // Close the even ones with their own codes; the odd ones keep working.
        for (index, client) in clients.enumerated() where index % 2 == 0 {
            client.socket.close(code: 4000 + UInt16(index), reason: "bye \(index)")
        }
        for (index, client) in clients.enumerated() where index % 2 == 0 {
            let closed = try await client.closed()
            #expect(closed.code == 4000 + UInt16(index))
            #expect(closed.reason == "bye \(index)")
        }
        let serverCodes = try await serverLog.wait("server saw the closes") { events in
            let codes = events.compactMap(\.closeCode)
            return codes.count >= count / 2 ? Set(codes) : nil
        }
        let evenCodes: Set<UInt16> = Set(stride(from: 0, to: count, by: 2).map { UInt16(4000 + $0) })
        #expect(serverCodes == evenCodes)
        for (index, client) in clients.enumerated() where index % 2 == 1 {
            client.socket.send([UInt8(index & 0xFF)])
        }
        for (index, client) in clients.enumerated() where index % 2 == 1 {
            let last = try await client.log.wait("late echo of \(index)") { _ in
                client.messages.count >= 4 ? client.messages[3] : nil
            }
            #expect(last == [UInt8(index & 0xFF)])
        }
        #expect(clients.enumerated().filter { $0.offset % 2 == 0 }.allSatisfy { $0.element.messages.count == 3 })

        await pool.stop()
        for client in clients { _ = try await client.closed() }
        let allClosed = try await serverLog.wait("server saw every close") { events in
            events.compactMap(\.closeCode).count >= count ? events.compactMap(\.closeCode) : nil
        }
        #expect(allClosed.count == count)
        #expect(allClosed.filter { $0 == 1001 }.count == count / 2, "stop() closes with 1001 (going away)")
        await server.stop()
    }

    @Test func serverCloseCodeAndEarlierMessagesReachThePooledConnection() async throws {
        let server = try WebSocketServer(
            .init(onEvent: { event in
                if case .opened(let connection) = event {
                    connection.send([1, 2, 3])
                    connection.close(code: 4401, reason: "unauthorized")
                }
            }))
        let pool = try WebSocketClientPool()
        let client = try await PooledClient.connect(pool, "ws://127.0.0.1:\(server.port)/room")
        let closed = try await client.closed()
        #expect(closed.code == 4401)
        #expect(closed.reason == "unauthorized")
        #expect(client.messages == [[1, 2, 3]])
        #expect(client.log.all.count == 2, "closed is the last event, and there is one")
        // The closed connection is gone from the pool: sending to it does nothing.
        client.socket.send([9])
        await pool.stop()
        #expect(client.log.all.count == 2)
        await server.stop()
    }

    @Test func upgradeRequestCarriesPathQueryAndHeaders() async throws {
        let serverLog = EventLog<WebSocketServerEvent>()
        let server = try echoServer(log: serverLog)
        let pool = try WebSocketClientPool()
        let client = try await PooledClient.connect(
            pool, "ws://127.0.0.1:\(server.port)/v1/sync/doc-1?token=abc",
            headers: [("Authorization", "Bearer t"), ("X-Accord-Client", "7")])
        let opened = try await serverLog.wait("opened") { $0.lazy.compactMap(\.opened).first }
        #expect(opened.request.path == "/v1/sync/doc-1")
        #expect(opened.request.queryValue("token") == "abc")
        #expect(opened.request.header("authorization") == "Bearer t")
        #expect(opened.request.header("x-accord-client") == "7")
        client.socket.ping([4, 2])
        let pong = try await client.log.wait("pong") { events in
            for case .pong(let payload) in events { return payload }
            return nil
        }
        #expect(pong == [4, 2])
        await pool.stop()
        await server.stop()
    }

    @Test func failedConnectsThrowAndLeaveThePoolWorking() async throws {
        let serverLog = EventLog<WebSocketServerEvent>()
        let server = try echoServer(log: serverLog) { $0.queryValue("token") == "good" }
        // A port held by a bound socket that does not listen: refused, and no other test's
        // server can take it meanwhile (a stopped server's port could be reused).
        let (holder, closedPort) = try boundSocket(listening: false)
        defer { close(holder) }
        let pool = try WebSocketClientPool()

        let refused = await #expect(throws: NetError.self) {
            _ = try await pool.connect(to: "ws://127.0.0.1:\(closedPort)/") { _ in }
        }
        #expect(refused?.code == .connectFailed)
        let rejected = await #expect(throws: NetError.self) {
            _ = try await pool.connect(to: "ws://127.0.0.1:\(server.port)/x?token=bad") { _ in }
        }
        #expect(rejected?.code == .connectFailed)
        let invalid = await #expect(throws: NetError.self) {
            _ = try await pool.connect(to: "http://127.0.0.1:\(server.port)/") { _ in }
        }
        #expect(invalid?.code == .invalidURL)

        let good = try await PooledClient.connect(pool, "ws://127.0.0.1:\(server.port)/x?token=good")
        good.socket.send([7, 7])
        _ = try await good.log.wait("echo after failures") { _ in good.messages.first }
        #expect(good.messages == [[7, 7]])
        await pool.stop()
        await server.stop()
    }

    @Test func stopClosesEveryConnectionAndRefusesNewOnes() async throws {
        let serverLog = EventLog<WebSocketServerEvent>()
        let server = try echoServer(log: serverLog)
        let pool = try WebSocketClientPool()
        var clients: [PooledClient] = []
        for index in 0..<20 {
            clients.append(try await PooledClient.connect(pool, "ws://127.0.0.1:\(server.port)/s\(index)"))
        }
        await pool.stop()
        for client in clients {
            #expect(try await client.closed().code == 1001)
        }
        let serverCodes = try await serverLog.wait("server saw 20 closes") { events in
            let codes = events.compactMap(\.closeCode)
            return codes.count >= 20 ? codes : nil
        }
        #expect(serverCodes == [UInt16](repeating: 1001, count: 20))
        let afterStop = await #expect(throws: NetError.self) {
            _ = try await pool.connect(to: "ws://127.0.0.1:\(server.port)/late") { _ in }
        }
        #expect(afterStop?.code == .connectFailed)
        await server.stop()
    }

    @Test func stopFailsConnectsInFlightAndEndsAfterTheGracePeriod() async throws {
        // A listener that accepts TCP connections (the kernel does, from the backlog)
        // but never answers the upgrade: the connect stays in flight.
        let (listener, port) = try boundSocket(listening: true)
        defer { close(listener) }
        let pool = try WebSocketClientPool()
        let attempt = Task { () -> NetError? in
            do throws(NetError) {
                _ = try await pool.connect(to: "ws://127.0.0.1:\(port)/") { _ in }
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(100))  // the connect is waiting for the upgrade
        let start = ContinuousClock.now
        await pool.stop(gracePeriod: .milliseconds(300))
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(250), "the pending connection kept the loop until the grace period ended")
        #expect(elapsed < .seconds(5))
        let error = await attempt.value
        #expect(error?.code == .connectFailed)
    }
}
