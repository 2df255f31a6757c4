import AccordTesting
import Foundation
import Testing

@testable import AccordNet

/// Client-side WebSocket bytes for raw-socket tests: the upgrade request and frames.
enum WebSocketHandshake {
    static func request(path: String, extraHeaders: [String] = []) -> [UInt8] {
        rawRequest(
            "GET", path,
            headers: [
                "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                "Sec-WebSocket-Version: 13",
            ] + extraHeaders)
    }

    /// One final binary frame; masked as RFC 6455 requires of clients unless `masked` is false.
    static func frame(_ payload: [UInt8], masked: Bool = true, opcode: UInt8 = 2) -> [UInt8] {
        var out: [UInt8] = [0x80 | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            out.append(maskBit | UInt8(payload.count))
        } else {
            out.append(maskBit | 126)
            out += [UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        }
        guard masked else { return out + payload }
        let key: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
        return out + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    /// Server frames (unmasked) after the 101 head: (opcode, payload) pairs.
    static func serverFrames(_ bytes: [UInt8]) -> [(opcode: UInt8, payload: [UInt8])] {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return [] }
        var rest = bytes[end.upperBound...]
        var frames: [(UInt8, [UInt8])] = []
        while rest.count >= 2 {
            let start = rest.startIndex
            var length = Int(rest[start + 1] & 0x7f)
            var offset = 2
            if length == 126 {
                guard rest.count >= 4 else { break }
                length = Int(rest[start + 2]) << 8 | Int(rest[start + 3])
                offset = 4
            }
            guard rest.count >= offset + length else { break }
            frames.append((rest[start] & 0x0f, Array(rest[(start + offset)..<(start + offset + length)])))
            rest = rest[(start + offset + length)...]
        }
        return frames
    }
}

/// WebSocket framing against hostile clients (issue 14, item 8).
@Suite(.timeLimit(.minutes(1)))
struct WebSocketFramingTests {
    private static func echoServer(log: EventLog<WebSocketServerEvent>) throws -> WebSocketServer {
        try WebSocketServer(
            .init(port: 0, onEvent: { event in
                log.append(event)
                if case .message(let connection, let bytes) = event { connection.send(bytes) }
            }))
    }

    /// Frames sent in the same segment as the upgrade request are all delivered, in order.
    @Test(arguments: [1, 9, 10, 40])
    func framesInTheUpgradeSegmentAreDeliveredInOrder(count: Int) async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try Self.echoServer(log: log)
        let messages = (0..<count).map { Array("m\($0)".utf8) }
        let bytes = WebSocketHandshake.request(path: "/v1/sync/doc") + messages.flatMap { WebSocketHandshake.frame($0) }
        let reply = try await rawExchange(port: server.port, [bytes], window: .seconds(3))
        let delivered = try await log.wait("\(count) messages", timeout: .seconds(5)) { events -> [[UInt8]]? in
            let got = events.compactMap(\.message)
            return got.count >= count || events.contains { $0.closeCode != nil } ? got : nil
        }
        #expect(delivered == messages)
        #expect(log.all.compactMap(\.closeCode).allSatisfy { $0 != 1002 })
        #expect(reply.text.hasPrefix("HTTP/1.1 101"))
        #expect(WebSocketHandshake.serverFrames(reply.bytes).map(\.payload) == messages, "echoes")
        await server.stop()
    }

    /// RFC 6455 §5.1: "The server MUST close the connection upon receiving a frame
    /// that is not masked" (1002). lws 4.1 never checks the mask bit, so the server
    /// frames its WebSockets itself (`ServerWebSocket`).
    @Test func unmaskedClientFrameClosesWith1002() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try Self.echoServer(log: log)
        let reply = try await Self.afterUpgrade(port: server.port, WebSocketHandshake.frame(Array("plain".utf8), masked: false))
        #expect(WebSocketBytes.frames(in: reply.bytes).first?.closeCode == 1002, "got \(reply.bytes.prefix(16))")
        #expect(reply.closed, "our side shuts down after the close frame")
        #expect(log.all.compactMap(\.message).isEmpty, "an unmasked frame is never delivered")
        await server.stop()
    }

    /// The other protocol errors of RFC 6455 §5 each fail the connection with 1002,
    /// after the good message before them was delivered. Failing drops what was queued
    /// (§7.1.7: no further data is sent), so its echo may or may not go out first.
    @Test(arguments: [
        ("RSV1 set (no extension agreed)", [0xC2, 0x80, 0, 0, 0, 0]),
        ("RSV3 set", [0x92, 0x80, 0, 0, 0, 0]),
        ("unknown data opcode 3", WebSocketBytes.frame(opcode: 0x3, [1])),
        ("unknown control opcode 0xB", WebSocketBytes.frame(opcode: 0xB, [])),
        ("ping over 125 bytes", WebSocketBytes.frame(opcode: 0x9, [UInt8](repeating: 7, count: 126))),
        ("fragmented ping", WebSocketBytes.frame(opcode: 0x9, [1], final: false)),
        ("continuation without a start", WebSocketBytes.frame(opcode: 0x0, [1])),
        ("new message inside a fragmented one",
         WebSocketBytes.frame([1], final: false) + WebSocketBytes.frame([2])),
        ("64-bit length with the top bit set", [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4]),
        ("close with a one-byte payload", WebSocketBytes.frame(opcode: 0x8, [3])),
        ("close with a reserved code (1005)", WebSocketBytes.frame(opcode: 0x8, [0x03, 0xED])),
    ] as [(String, [UInt8])])
    func protocolErrorClosesWith1002(_ name: String, _ bad: [UInt8]) async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try Self.echoServer(log: log)
        let good = WebSocketHandshake.frame(Array("ok".utf8))
        let reply = try await Self.afterUpgrade(port: server.port, good + bad + WebSocketHandshake.frame(Array("late".utf8)))
        let frames = WebSocketBytes.frames(in: reply.bytes)
        #expect(frames.dropLast().allSatisfy { $0.payload == Array("ok".utf8) }, "\(name): only the good echo before the close")
        #expect(frames.last?.closeCode == 1002, "\(name): got \(frames.map(\.opcode))")
        #expect(reply.closed, "\(name)")
        let code = try await log.wait("\(name): closed", timeout: .seconds(5)) { $0.lazy.compactMap(\.closeCode).first }
        #expect(code == 1002)
        #expect(log.all.compactMap(\.message) == [Array("ok".utf8)], "\(name): nothing after the error is delivered")
        await server.stop()
    }

    /// Control frames inside a fragmented message are answered, and the message still
    /// arrives whole; a ping gets a pong with its payload (§5.4, §5.5.2).
    @Test func pingBetweenFragmentsIsAnsweredAndTheMessageArrives() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try Self.echoServer(log: log)
        let bytes = WebSocketBytes.frame(Array("he".utf8), final: false) + WebSocketBytes.frame(opcode: 0x9, [9, 8])
            + WebSocketBytes.frame(opcode: 0x0, Array("ll".utf8), final: false) + WebSocketBytes.frame(opcode: 0xA, [])
            + WebSocketBytes.frame(opcode: 0x0, Array("o".utf8))
        let reply = try await Self.afterUpgrade(port: server.port, bytes, window: .milliseconds(800))
        let frames = WebSocketBytes.frames(in: reply.bytes)
        #expect(frames.contains { $0.opcode == 0xA && $0.payload == [9, 8] })
        #expect(frames.contains { $0.opcode == 0x2 && $0.payload == Array("hello".utf8) })
        #expect(log.all.compactMap(\.message) == [Array("hello".utf8)])
        await server.stop()
    }

    /// A close the client starts is echoed with its code, then the server closes.
    @Test func clientCloseIsEchoed() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try Self.echoServer(log: log)
        let reply = try await Self.afterUpgrade(port: server.port, WebSocketBytes.frame(opcode: 0x8, [0x0F, 0xA1] + Array("bye".utf8)))
        #expect(WebSocketBytes.frames(in: reply.bytes).map(\.closeCode) == [4001])
        #expect(reply.closed)
        let code = try await log.wait("closed", timeout: .seconds(5)) { $0.lazy.compactMap(\.closeCode).first }
        #expect(code == 4001)
        await server.stop()
    }

    /// Upgrades, waits for the 101 (checking its accept key), sends `bytes` and returns
    /// what followed, until the server closed or `window` passed.
    private static func afterUpgrade(port: Int, _ bytes: [UInt8], window: Duration = .seconds(3)) async throws -> RawReply {
        try await onThread { () -> RawReply in
            let fd = try connectTCP("127.0.0.1", port)
            defer { close(fd) }
            try sendAll(fd, WebSocketHandshake.request(path: "/x"))
            let head = try readReply(fd, window: .milliseconds(300), limit: 4096)
            guard head.text.hasPrefix("HTTP/1.1 101"), head.text.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n")
            else { throw SocketError(description: "no 101: \(head.text)") }
            try sendAll(fd, bytes)
            return try readReply(fd, window: window, limit: 16 * 1024)
        }
    }
}
