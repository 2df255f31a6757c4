import Testing

@testable import AccordTesting

/// The proxy's framing, without sockets.
@Suite struct WebSocketStreamSplitterTests {
    typealias Unit = WebSocketStreamSplitter.Unit

    static let request = Array(
        ("GET /x HTTP/1.1\r\nHost: a\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: k\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)

    /// One frame; masked with a fixed key when `masked`.
    static func frame(_ opcode: UInt8, fin: Bool = true, masked: Bool = true, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126: bytes.append(maskBit | UInt8(payload.count))
        case ..<65536: bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default: bytes += [maskBit | 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
        }
        if masked {
            let key: [UInt8] = [0x12, 0x34, 0x56, 0x78]
            bytes += key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        } else {
            bytes += payload
        }
        return bytes
    }

    /// A client stream: the upgrade, a message in three fragments with a ping between
    /// the first two, a text message with a 16-bit length, a 64-bit-length message, a close.
    static let fragmentA = frame(0x2, fin: false, [1, 2, 3])
    static let ping = frame(0x9, [9])
    static let fragmentB = frame(0x0, fin: false, Array(repeating: 4, count: 200))
    static let fragmentC = frame(0x0, [5])
    static let text = frame(0x1, Array(repeating: 65, count: 300))
    static let large = frame(0x2, Array(repeating: 7, count: 70_000))
    static let close = frame(0x8, [0x03, 0xE8])
    static let stream = request + fragmentA + ping + fragmentB + fragmentC + text + large + close
    static let expected: [Unit] = [
        .head(request),
        .control(ping, opcode: 0x9),
        .message(fragmentA + fragmentB + fragmentC, frames: 3),
        .message(text, frames: 1),
        .message(large, frames: 1),
        .control(close, opcode: 0x8),
    ]

    @Test(arguments: [1, 2, 3, 7, 100, 65536, Int.max])
    func cutsTheSameUnitsWhateverTheChunkSize(chunk: Int) {
        var splitter = WebSocketStreamSplitter(side: .client)
        var units: [Unit] = []
        var offset = 0
        while offset < Self.stream.count {
            let end = offset + min(chunk, Self.stream.count - offset)
            units += splitter.feed(Self.stream[offset..<end])
            offset = end
        }
        #expect(units == Self.expected)
        #expect(splitter.isFraming)
    }

    @Test func readsUnmaskedServerFramesAfterA101() {
        let response = Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n".utf8)
        let message = Self.frame(0x2, masked: false, [1, 2])
        let pong = Self.frame(0xA, masked: false, [])
        var splitter = WebSocketStreamSplitter(side: .server)
        #expect(splitter.feed(response + message + pong) == [.head(response), .message(message, frames: 1), .control(pong, opcode: 0xA)])
    }

    @Test func aHeadThatIsNoUpgradeTurnsTheStreamRaw() {
        let request = Array("GET /health HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        var client = WebSocketStreamSplitter(side: .client)
        #expect(client.feed(request + [0x82, 0x00]) == [.head(request), .raw([0x82, 0x00])])
        #expect(client.feed([1, 2]) == [.raw([1, 2])])

        let refused = Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 2\r\n\r\nno".utf8)
        var server = WebSocketStreamSplitter(side: .server)
        #expect(server.feed(refused) == [.head(Array(refused.dropLast(2))), .raw(Array("no".utf8))])
        #expect(!server.isFraming)
    }

    /// A stream that cannot start an HTTP head (another protocol: PostgreSQL's startup
    /// packet, its one-byte SSL answer) passes at once, not after 64 KiB or never.
    @Test func anotherProtocolPassesAtOnce() {
        var client = WebSocketStreamSplitter(side: .client)
        let startup: [UInt8] = [0, 0, 0, 8, 0x04, 0xD2, 0x16, 0x2F]
        #expect(client.feed(startup) == [.raw(startup)])
        var server = WebSocketStreamSplitter(side: .server)
        #expect(server.feed(Array("N".utf8)) == [.raw(Array("N".utf8))])
        // What may still become a head waits for more: a method, a status line.
        var request = WebSocketStreamSplitter(side: .client)
        #expect(request.feed(Array("GE".utf8)).isEmpty)
        var status = WebSocketStreamSplitter(side: .server)
        #expect(status.feed(Array("HTT".utf8)).isEmpty)
    }

    /// Garbage still reaches the server byte for byte, so a server's framing checks can
    /// be tested through a proxy.
    @Test(arguments: [
        WebSocketStreamSplitterTests.frame(0x3, [1]),  // reserved opcode
        WebSocketStreamSplitterTests.frame(0x0, [1]),  // continuation outside a message
        WebSocketStreamSplitterTests.frame(0x9, fin: false, [1]),  // fragmented control frame
        WebSocketStreamSplitterTests.frame(0x2, fin: false, [1]) + WebSocketStreamSplitterTests.frame(0x2, [2]),  // new message inside a message
        [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0],  // 64-bit length with the top bit set
    ])
    func framingErrorsTurnTheRestRaw(garbage: [UInt8]) {
        let good = Self.frame(0x2, [1])
        var splitter = WebSocketStreamSplitter(side: .client)
        var units = splitter.feed(Self.request + good + garbage)
        units += splitter.feed(good)
        #expect(units.first == .head(Self.request))
        #expect(units.dropFirst().first == .message(good, frames: 1))
        let rest = units.dropFirst(2).flatMap { unit -> [UInt8] in
            guard case .raw(let bytes) = unit else {
                Issue.record("expected raw bytes, got \(unit)")
                return []
            }
            return bytes
        }
        #expect(rest == garbage + good)
    }
}
