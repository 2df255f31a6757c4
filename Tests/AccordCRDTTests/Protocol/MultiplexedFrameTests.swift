import Testing
@testable import AccordCRDT

@Suite struct MultiplexedFrameTests {
    @Test func goldenFramesEncodeAndDecodeToTheHandWrittenBytes() throws {
        for (name, frame, hex) in AccordMessageFixtures.goldenMultiplexed {
            let bytes = AccordMessageFixtures.bytes(hex)
            #expect(try frame.encode() == bytes, "\(name)")
            #expect(try MultiplexedFrame.decode(bytes) == frame, "\(name)")
        }
    }

    @Test func wrapsAccordMessagesUnderTheirDocument() throws {
        let messages: [AccordMessage] = AccordMessageTests.examples
        for message in messages {
            let frame = try MultiplexedFrame(message)
            #expect(frame.documentID == message.documentID)
            let decoded = try MultiplexedFrame.decode(try frame.encode())
            #expect(decoded == frame)
            #expect(decoded.accordMessage == message)
        }
    }

    @Test func stockFramesForManyDocumentsShareOneConnection() throws {
        let frames: [MultiplexedFrame] = [
            MultiplexedFrame(documentID: "a", frame: .sync(.update([1, 2]))),
            MultiplexedFrame(documentID: "ü/b", frame: .queryAwareness),
            MultiplexedFrame(documentID: "c", frame: .auth(.permissionDenied(reason: ""))),
            MultiplexedFrame(documentID: "d", frame: .custom(type: 7, body: [9, 9])),
        ]
        for frame in frames {
            let decoded = try MultiplexedFrame.decode(try frame.encode())
            #expect(decoded == frame)
            #expect(decoded.accordMessage == nil)
        }
    }

    static let refused: [(String, String)] = [
        ("empty", ""),
        ("id only", "05 6e6f746573"),
        ("connection-wide sync frame", "00 00 00 01 00"),
        ("control character in id", "02 61 0a 03"),
        ("invalid UTF-8 in id", "02 61 ff 03"),
        ("id length past the end", "ffffffff0f 03"),
        ("ack naming another document", "05 6e6f746573 64 02 05 6f74686572 01"),
        ("ack on the connection", "00 64 02 05 6e6f746573 01"),
        ("hello under a document", "01 61 64 00 00 00 00"),
        ("broken Accord message", "01 61 64 02 01 61"),
        ("trailing bytes after a sync frame", "01 61 00 00 01 00 00"),
    ]

    @Test(arguments: refused)
    func malformedFramesAreRefused(_ name: String, _ hex: String) {
        #expect { try MultiplexedFrame.decode(AccordMessageFixtures.bytes(hex)) } throws: {
            ($0 as? AccordError)?.code == .malformedMessage
        }
    }

    @Test func mismatchedEnvelopeIsRefusedWhenEncoded() throws {
        let ack = try AccordMessage.ack(documentID: "a", through: 1).frame()
        #expect { try MultiplexedFrame(documentID: "b", frame: ack).encode() } throws: {
            ($0 as? AccordError)?.code == .invalidArgument
        }
        #expect { try MultiplexedFrame(documentID: nil, frame: .queryAwareness).encode() } throws: {
            ($0 as? AccordError)?.code == .invalidArgument
        }
    }
}
