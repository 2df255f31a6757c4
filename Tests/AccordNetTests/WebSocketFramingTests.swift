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

    /// RFC 6455 §5.1. lws 4.1 parses the mask bit and then ignores it, and AccordNet
    /// never sees the raw frame after the upgrade; lws 5.0 closes with 1002 ("client
    /// unmasked", upstream commit cae06c63a). Known issue until the system lws is 5.x.
    @Test func unmaskedClientFrameClosesWith1002() async throws {
        let log = EventLog<WebSocketServerEvent>()
        let server = try Self.echoServer(log: log)
        let port = server.port
        let reply = try await onThread { () -> RawReply in
            let fd = try connectTCP("127.0.0.1", port)
            defer { close(fd) }
            try sendAll(fd, WebSocketHandshake.request(path: "/x"))
            _ = try readReply(fd, window: .milliseconds(300), limit: 4096)
            try sendAll(fd, WebSocketHandshake.frame(Array("plain".utf8), masked: false))
            return try readReply(fd, window: .seconds(3), limit: 4096)
        }
        var closeCode: UInt16?
        if reply.bytes.count >= 4, reply.bytes[0] == 0x88 { closeCode = UInt16(reply.bytes[2]) << 8 | UInt16(reply.bytes[3]) }
        withKnownIssue("lws 4.1 accepts unmasked client frames") {
            #expect(closeCode == 1002, "got \(reply.bytes.prefix(16))")
            #expect(log.all.compactMap(\.message).isEmpty, "an unmasked frame is never delivered")
        }
        await server.stop()
    }
}
