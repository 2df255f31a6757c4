import Foundation
import Testing

@testable import AccordNet

/// Silent WebSockets are pinged and, when they never answer, dropped.
@Suite(.timeLimit(.minutes(1)))
struct IdlePolicyTests {
    private func server(log: EventLog<WebSocketServerEvent>) throws -> WebSocketServer {
        try WebSocketServer(.init(port: 0, pingAfterSeconds: 1, hangUpAfterSeconds: 3, onEvent: { log.append($0) }))
    }

    @Test func aPeerThatAnswersPingsStaysConnected() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try server(log: log)
        let client = try await RecordedClient.connect("ws://127.0.0.1:\(server.port)/")
        try await Task.sleep(for: .seconds(5))  // past the hang-up time, answering pings meanwhile
        #expect(log.all.compactMap(\.closeCode).isEmpty)
        client.client.close()
        _ = try await client.closed()
        await server.stop()
    }

    @Test func aPeerThatNeverAnswersIsDropped() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try server(log: log)
        // A raw socket that completes the upgrade and then never reads or answers.
        let fd = try await onThread { () throws -> Int32 in
            let fd = try connectTCP("127.0.0.1", server.port)
            let request = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            try sendAll(fd, Array(request.utf8))
            return fd
        }
        defer { close(fd) }
        _ = try await log.wait("opened") { $0.lazy.compactMap(\.opened).first }
        let started = ContinuousClock.now
        let code = try await log.wait("dropped", timeout: .seconds(15)) { $0.lazy.compactMap(\.closeCode).first }
        #expect(code == 1006)
        #expect(ContinuousClock.now - started >= .seconds(2))
        await server.stop()
    }
}
