import Testing
@testable import AccordCRDT

/// Channel messages (Accord subtypes 30–35) and the channel key rule, against bytes
/// written by hand from the layout in `docs/protocol.md`.
@Suite struct ChannelMessageTests {
    static func key(_ text: String) -> ChannelKey { ChannelKey(rawValue: text)! }

    static let golden: [(name: String, message: ChannelMessage, hex: String)] = [
        // 64 · 1e attach · vs("room-1.lobby") · 01 realtime
        ("attach", .attach(key: key("room-1.lobby"), realtime: true), "64 1e 0c 726f6f6d2d312e6c6f626279 01"),
        ("attach not realtime", .attach(key: key("a"), realtime: false), "64 1e 01 61 00"),
        // 1f detach · vs("a")
        ("detach", .detach(key: key("a")), "64 1f 01 61"),
        // 20 sync · vs("a_b")
        ("sync", .sync(key: key("a_b")), "64 20 03 615f62"),
        // 21 count · vs("room-1") · vu(300) = ac 02
        ("count", .count(key: key("room-1"), sessions: 300), "64 21 06 726f6f6d2d31 ac02"),
        // 22 broadcast · vs("room-1") · vs("wave") · vs("{}") · 01 · vs("ann")
        ("broadcast", .broadcast(key: key("room-1"), topic: "wave", payload: "{}", sender: "ann"),
         "64 22 06 726f6f6d2d31 04 77617665 02 7b7d 01 03 616e6e"),
        ("broadcast without sender", .broadcast(key: key("a"), topic: "", payload: "1", sender: nil), "64 22 01 61 00 01 31 00"),
        // 23 error · vs("a") · vs("E") · vs("no")
        ("error", .error(key: key("a"), code: "E", message: "no"), "64 23 01 61 01 45 02 6e6f"),
    ]

    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    @Test func goldenMessagesEncodeAndDecodeToTheHandWrittenBytes() throws {
        for (name, message, hex) in Self.golden {
            let expected = Self.bytes(hex)
            #expect(try AccordMessage.channel(message).encode() == expected, "\(name)")
            #expect(try AccordMessage.decode(expected) == .channel(message), "\(name)")
        }
    }

    @Test func onTheMultiplexedConnectionTheyAreConnectionWide() throws {
        let attach = AccordMessage.channel(.attach(key: Self.key("room-1.lobby"), realtime: true))
        let frame = try MultiplexedFrame(attach)
        #expect(frame.documentID == nil)
        #expect(try frame.encode() == Self.bytes("00 64 1e 0c 726f6f6d2d312e6c6f626279 01"))
        #expect(try MultiplexedFrame.decode(try frame.encode()).accordMessage == attach)
        // Under a document's envelope the two layers would disagree: refused.
        #expect { try MultiplexedFrame.decode(Self.bytes("05 6e6f746573 64 1f 01 61")) } throws: {
            ($0 as? AccordError)?.code == .malformedMessage
        }
    }

    static let malformed: [(name: String, hex: String)] = [
        ("unknown reserved subtype", "64 24 01 61"),
        ("subtype 39", "64 27 01 61"),
        ("attach mode 2", "64 1e 01 61 02"),
        ("attach truncated", "64 1e 01 61"),
        ("trailing byte", "64 1f 01 61 00"),
        ("empty key", "64 1f 00"),
        ("key with an empty segment", "64 1f 03 612e2e"),
        ("key ending in a dot", "64 1f 02 612e"),
        ("key with a slash", "64 1f 03 612f62"),
        ("key with a space", "64 1f 03 612062"),
        ("key of invalid UTF-8", "64 1f 02 c328"),
        ("key length past the end", "64 1f 09 61"),
        ("broadcast payload not JSON", "64 22 01 61 00 01 7b 00"),
        ("broadcast optional marker 2", "64 22 01 61 00 01 31 02"),
        ("error with an empty code", "64 23 01 61 00 00"),
        ("count truncated varint", "64 21 01 61 ff"),
    ]

    @Test func malformedInputIsRefusedWithTheOneCode() {
        for (name, hex) in Self.malformed {
            #expect(throws: AccordError.self, "\(name)") { try AccordMessage.decode(Self.bytes(hex)) }
            do {
                _ = try AccordMessage.decode(Self.bytes(hex))
            } catch {
                #expect(error.code == .malformedMessage, "\(name)")
            }
        }
    }

    @Test func aKeyLongerThanTheLimitIsRefusedBothWays() throws {
        let longest = String(repeating: "a", count: ChannelKey.maxBytes)
        #expect(ChannelKey(rawValue: longest) != nil)
        let tooLong = longest + "a"
        #expect(ChannelKey(rawValue: tooLong) == nil)
        let encoded: [UInt8] = [0x64, 0x1f, 0x81, 0x01] + Array(tooLong.utf8)  // vu(129) = 81 01
        #expect { try AccordMessage.decode(encoded) } throws: { ($0 as? AccordError)?.code == .malformedMessage }
    }

    @Test func aPayloadOverTheLimitCannotBeSent() {
        let big = "\"" + String(repeating: "x", count: ChannelMessage.maxPayloadBytes) + "\""
        let message = AccordMessage.channel(.broadcast(key: Self.key("a"), topic: "t", payload: big, sender: nil))
        #expect { try message.encode() } throws: { ($0 as? AccordError)?.code == .invalidArgument }
        let notJSON = AccordMessage.channel(.broadcast(key: Self.key("a"), topic: "t", payload: "{", sender: nil))
        #expect { try notJSON.encode() } throws: { ($0 as? AccordError)?.code == .invalidArgument }
    }

    static let validKeys = ["a", "room-1", "room-1.section-a", "A_b-9.x.Y", "0", "a.b.c.d.e.f", "__.--"]
    static let invalidKeys = ["", ".", "a.", ".a", "a..b", "a b", "a/b", "é", "a*", "a.*", "room:1", "tab\t", "a\u{0}"]

    @Test func theKeyRule() {
        for key in Self.validKeys { #expect(ChannelKey(rawValue: key) != nil, "\(key)") }
        for key in Self.invalidKeys {
            #expect(ChannelKey(rawValue: key) == nil, "\(key)")
            #expect { try ChannelKey(validating: key) } throws: { ($0 as? AccordError)?.code == .invalidArgument }
        }
    }

    @Test func selfAndAncestorsRunOutermostFirst() {
        #expect(Self.key("a.b.c").selfAndAncestors.map(\.rawValue) == ["a", "a.b", "a.b.c"])
        #expect(Self.key("x").selfAndAncestors.map(\.rawValue) == ["x"])
    }

    @Test func channelCodesKeepTheirStrings() {
        #expect(ErrorCode.allChannelCodes.map(\.rawValue) == ["TOO_MANY_CHANNELS", "CHANNEL_NOT_ATTACHED", "CHANNEL_ACCESS_DENIED"])
        #expect(Set(ErrorCode.allChannelCodes).isDisjoint(with: ErrorCode.allCRDTCodes))
    }
}
