import AccordTesting
import Testing

@testable import AccordNet

/// `WebSocketFrameParser` without sockets: client frames in, events out.
@Suite struct WebSocketFrameParserTests {
    /// What the parser reported, with data pieces copied out of the callback.
    enum Seen: Equatable {
        case data([UInt8], first: Bool, last: Bool)
        case ping([UInt8])
        case pong([UInt8])
        case close(UInt16?, String)
        case error(UInt16, String)
    }

    /// Feeds `bytes` in slices of `slice` bytes (one call per slice).
    static func parse(_ bytes: [UInt8], slice: Int = .max, parser: inout WebSocketFrameParser) -> [Seen] {
        var seen: [Seen] = []
        var start = 0
        var input = bytes
        while start < input.count {
            let end = min(input.count, start + slice)
            input.withUnsafeMutableBytes { buffer in
                parser.parse(UnsafeMutableRawBufferPointer(rebasing: buffer[start..<end])) { event in
                    switch event {
                    case .data(let piece, let first, let last): seen.append(.data(Array(piece), first: first, last: last))
                    case .ping(let payload): seen.append(.ping(payload))
                    case .pong(let payload): seen.append(.pong(payload))
                    case .close(let code, let reason): seen.append(.close(code, reason))
                    case .protocolError(let code, let reason): seen.append(.error(code, reason))
                    }
                }
            }
            start = end
        }
        return seen
    }

    static func parse(_ bytes: [UInt8], slice: Int = .max) -> [Seen] {
        var parser = WebSocketFrameParser()
        return parse(bytes, slice: slice, parser: &parser)
    }

    /// Joins data pieces into messages, the way `WebSocketPeer` does.
    static func messages(_ seen: [Seen]) -> [[UInt8]] {
        var messages: [[UInt8]] = []
        var current: [UInt8] = []
        for case .data(let bytes, let first, let last) in seen {
            if first { current = [] }
            current += bytes
            if last { messages.append(current) }
        }
        return messages
    }

    @Test func unmasksAMessageOfEachLengthForm() {
        for count in [0, 1, 125, 126, 65535, 65536, 70_000] {
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let seen = Self.parse(WebSocketBytes.frame(payload))
            #expect(Self.messages(seen) == [payload], "\(count) bytes")
        }
    }

    /// Any slicing of the input (down to one byte per read) gives the same messages
    /// and control frames, in the same order.
    @Test(arguments: [1, 2, 3, 7, 13, 64, 1000])
    func slicingDoesNotChangeTheResult(slice: Int) {
        let bytes = WebSocketBytes.frame(Array("he".utf8), final: false) + WebSocketBytes.frame(opcode: 0x9, [1, 2])
            + WebSocketBytes.frame(opcode: 0x0, Array("llo".utf8), final: false)
            + WebSocketBytes.frame(opcode: 0x0, [], final: false) + WebSocketBytes.frame(opcode: 0xA, [3])
            + WebSocketBytes.frame(opcode: 0x0, Array(" world".utf8)) + WebSocketBytes.frame(opcode: 0x1, [])
            + WebSocketBytes.frame([UInt8](repeating: 5, count: 300))
            + WebSocketBytes.frame(opcode: 0x8, [0x03, 0xE8] + Array("done".utf8))
        let seen = Self.parse(bytes, slice: slice)
        #expect(Self.messages(seen) == [Array("hello world".utf8), [], [UInt8](repeating: 5, count: 300)])
        let controls = seen.filter { if case .data = $0 { false } else { true } }
        #expect(controls == [.ping([1, 2]), .pong([3]), .close(1000, "done")])
    }

    @Test func closeWithoutAPayloadHasNoCode() {
        #expect(Self.parse(WebSocketBytes.frame(opcode: 0x8, [])) == [.close(nil, "")])
    }

    @Test func nothingIsParsedAfterAClose() {
        let seen = Self.parse(WebSocketBytes.frame(opcode: 0x8, [0x03, 0xE8]) + WebSocketBytes.frame([1]))
        #expect(seen == [.close(1000, "")])
    }

    @Test(arguments: [
        ("unmasked", WebSocketBytes.frame([1], masked: false), 1002),
        ("RSV1", [0xC2, 0x80, 0, 0, 0, 0], 1002),
        ("RSV2", [0xA2, 0x80, 0, 0, 0, 0], 1002),
        ("RSV3", [0x92, 0x80, 0, 0, 0, 0], 1002),
        ("opcode 3", WebSocketBytes.frame(opcode: 0x3, [1]), 1002),
        ("opcode 7", WebSocketBytes.frame(opcode: 0x7, [1]), 1002),
        ("opcode 0xB", WebSocketBytes.frame(opcode: 0xB, []), 1002),
        ("opcode 0xF", WebSocketBytes.frame(opcode: 0xF, []), 1002),
        ("ping of 126 bytes", WebSocketBytes.frame(opcode: 0x9, [UInt8](repeating: 0, count: 126)), 1002),
        ("close of 126 bytes", WebSocketBytes.frame(opcode: 0x8, [3, 232] + [UInt8](repeating: 65, count: 124)), 1002),
        ("fragmented pong", WebSocketBytes.frame(opcode: 0xA, [], final: false), 1002),
        ("continuation first", WebSocketBytes.frame(opcode: 0x0, [1]), 1002),
        ("text inside a fragmented binary", WebSocketBytes.frame([1], final: false) + WebSocketBytes.frame(opcode: 0x1, [2]), 1002),
        ("64-bit length, top bit", [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4], 1002),
        ("close of one byte", WebSocketBytes.frame(opcode: 0x8, [3]), 1002),
        ("close code 999", WebSocketBytes.frame(opcode: 0x8, [0x03, 0xE7]), 1002),
        ("close code 1006", WebSocketBytes.frame(opcode: 0x8, [0x03, 0xEE]), 1002),
        ("close code 2000", WebSocketBytes.frame(opcode: 0x8, [0x07, 0xD0]), 1002),
        ("close reason not UTF-8", WebSocketBytes.frame(opcode: 0x8, [0x03, 0xE8, 0xFF, 0xFE]), 1007),
    ] as [(String, [UInt8], UInt16)])
    func protocolErrorsFailOnceAndStopParsing(_ name: String, _ bad: [UInt8], _ code: UInt16) {
        for slice in [1, Int.max] {
            var parser = WebSocketFrameParser()
            let seen = Self.parse(WebSocketBytes.frame([9]) + bad + WebSocketBytes.frame([8]), slice: slice, parser: &parser)
            #expect(seen.first == .data([9], first: true, last: true), "\(name)")
            let errors = seen.compactMap { if case .error(let code, _) = $0 { code } else { nil } }
            #expect(errors == [code], "\(name), slices of \(slice)")
            if case .error = seen.last {} else { Issue.record("\(name): events after the error: \(seen)") }
            #expect(parser.isDone)
        }
    }

    /// An unmasked frame is refused as soon as its second byte is read, before any of
    /// its (possibly huge) payload.
    @Test func unmaskedIsRefusedAtTheSecondByte() {
        var parser = WebSocketFrameParser()
        let seen = Self.parse([0x82, 0x7F], parser: &parser)
        #expect(seen.count == 1)
        #expect(parser.isDone)
    }

    @Test func validCloseCodes() {
        let valid: [UInt16] = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 4999]
        let invalid: [UInt16] = [0, 999, 1004, 1005, 1006, 1012, 1015, 2999, 5000]
        #expect(valid.allSatisfy(WebSocketFrameParser.isValidCloseCode))
        #expect(!invalid.contains(where: WebSocketFrameParser.isValidCloseCode))
    }
}

@Suite struct ServerFrameTests {
    @Test func headersUseTheShortestLengthForm() {
        #expect(ServerFrame.encode(opcode: ServerFrame.binary, [1, 2]) == [0x82, 2, 1, 2])
        #expect(Array(ServerFrame.encode(opcode: ServerFrame.binary, [UInt8](repeating: 0, count: 126)).prefix(4)) == [0x82, 126, 0, 126])
        let large = ServerFrame.encode(opcode: ServerFrame.binary, [UInt8](repeating: 0, count: 65536))
        #expect(Array(large.prefix(10)) == [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0])
        #expect(WebSocketBytes.frames(in: large).first?.payload.count == 65536)
    }

    /// The example of RFC 6455 §1.3.
    @Test func acceptKeyMatchesTheRFCExample() {
        #expect(UpgradeResponse.accept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}
