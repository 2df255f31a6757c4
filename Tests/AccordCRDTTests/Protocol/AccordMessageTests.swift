import Testing
@testable import AccordCRDT

@Suite struct AccordMessageTests {
    @Test func goldenMessagesEncodeAndDecodeToTheHandWrittenBytes() throws {
        for (name, message, hex) in AccordMessageFixtures.golden {
            let bytes = AccordMessageFixtures.bytes(hex)
            #expect(try message.encode() == bytes, "\(name)")
            #expect(try AccordMessage.decode(bytes) == message, "\(name)")
        }
    }

    static let examples: [AccordMessage] = [
        .hello(serverVersion: "", maxFrameBytes: 0, heartbeatSeconds: 0),
        .hello(serverVersion: "accord 1.0 ✓", maxFrameBytes: .max, heartbeatSeconds: .max),
        .update(documentID: "n", sequence: 0, bytes: []),
        .update(documentID: "文書/ドキュメント 📄", sequence: .max, bytes: Array(0...255)),
        .update(documentID: String(repeating: "a", count: 256), sequence: 1 << 63, bytes: [0]),
        .ack(documentID: "notes", through: 0),
        .ack(documentID: "é", through: .max),
        .error(code: "X", message: "", documentID: nil),
        .error(code: String(repeating: "C", count: 64), message: "ünïcødé 🚫 message", documentID: "doc 1"),
        .broadcast(documentID: "d", topic: "", payload: "null", sender: nil),
        .broadcast(documentID: "d", topic: "カーソル", payload: #"{"pos":[1,2.5,"→"],"on":true}"#, sender: ""),
        .broadcast(documentID: "d", topic: String(repeating: "t", count: 256), payload: "\"\"",
                   sender: String(repeating: "s", count: 256)),
    ]

    @Test(arguments: examples)
    func roundTrips(_ message: AccordMessage) throws {
        let bytes = try message.encode()
        #expect(bytes.first == 100)
        #expect(try AccordMessage.decode(bytes) == message)
        // Through the stock frame layer, it is a custom frame of type 100.
        let frame = try ProtocolFrame.decode(bytes)
        #expect(frame.type == AccordMessage.frameType)
        #expect(try AccordMessage.decode(frame: frame) == message)
    }

    @Test func stockFramesStillDecodeAsBeforeAndAreNotAccordMessages() throws {
        let step1 = AccordMessageFixtures.bytes("00 00 01 00")
        #expect(try ProtocolFrame.decode(step1) == .sync(.step1(stateVector: [0])))
        let awareness = AccordMessageFixtures.bytes("01 01 00")
        #expect(try ProtocolFrame.decode(awareness) == .awareness([0]))
        for bytes in [step1, awareness] {
            #expect { try AccordMessage.decode(bytes) } throws: { ($0 as? AccordError)?.code == .malformedMessage }
        }
    }

    static let invalidToSend: [AccordMessage] = [
        .update(documentID: "", sequence: 1, bytes: []),
        .ack(documentID: String(repeating: "a", count: 257), through: 1),
        .ack(documentID: "tab\there", through: 1),
        .ack(documentID: "c1\u{85}", through: 1),
        .error(code: "", message: "m", documentID: nil),
        .error(code: String(repeating: "C", count: 65), message: "m", documentID: nil),
        .error(code: "E", message: "m", documentID: "nul\u{0}"),
        .hello(serverVersion: String(repeating: "v", count: 257), maxFrameBytes: 1, heartbeatSeconds: 1),
        .broadcast(documentID: "d", topic: String(repeating: "t", count: 257), payload: "1", sender: nil),
        .broadcast(documentID: "d", topic: "t", payload: "1", sender: String(repeating: "s", count: 257)),
        .broadcast(documentID: "d", topic: "t", payload: "{", sender: nil),
        .broadcast(documentID: "d", topic: "t", payload: "", sender: nil),
        .broadcast(documentID: "d", topic: "t", payload: "undefined", sender: nil),
        .broadcast(documentID: "d", topic: "t", payload: "[1] 2", sender: nil),
    ]

    @Test(arguments: invalidToSend)
    func invalidMessagesAreRefusedWhenEncoded(_ message: AccordMessage) {
        #expect { try message.encode() } throws: { ($0 as? AccordError)?.code == .invalidArgument }
    }

    @Test func documentIDErrorsSayWhatIsWrong() {
        #expect { try WireDocumentID.validate("") } throws: {
            ($0 as? AccordError)?.message == "a document id has 1 to 256 bytes of UTF-8, not 0"
        }
        #expect { try WireDocumentID.validate("a\u{7F}") } throws: {
            ($0 as? AccordError)?.message == "a document id may not contain the control character U+7F"
        }
        #expect(throws: Never.self) { try WireDocumentID.validate(String(repeating: "é", count: 128)) }
    }
}
