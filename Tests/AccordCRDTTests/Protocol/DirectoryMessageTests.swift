import Testing
@testable import AccordCRDT

/// Subtypes 20–22 of Accord's type-100 messages (`docs/protocol.md`): the directory's
/// events and a device's create.
@Suite struct DirectoryMessageTests {
    static let golden: [(String, AccordMessage, String)] = [
        ("permission granted",
         .directory(.permissionChanged(documentID: "notes", permission: "reader", previous: nil, cause: "grant")),
         "64 14 05 6e6f746573 01 06 726561646572 00 05 6772616e74"),
        ("entry deleted", .directory(.entryChanged(documentID: "notes", action: "deleted", entry: nil)),
         "64 15 05 6e6f746573 07 64656c65746564 00"),
        ("entry updated", .directory(.entryChanged(documentID: "n", action: "updated", entry: "{}")),
         "64 15 01 6e 07 75706461746564 01 02 7b7d"),
        ("create", .directory(.create(documentID: "notes", title: "N", tags: ["a"], metadata: nil)),
         "64 16 05 6e6f746573 01 4e 01 01 61 00"),
    ]

    @Test func goldenMessagesEncodeAndDecodeToTheHandWrittenBytes() throws {
        for (name, message, hex) in Self.golden {
            let bytes = AccordMessageFixtures.bytes(hex)
            #expect(try message.encode() == bytes, "\(name)")
            #expect(try AccordMessage.decode(bytes) == message, "\(name)")
        }
    }

    static let examples: [DirectoryMessage] = [
        .permissionChanged(documentID: "a/b", permission: nil, previous: "owner", cause: "delete"),
        .permissionChanged(documentID: "d", permission: "read-write", previous: "reader", cause: "future-cause"),
        .entryChanged(documentID: "文書", action: "updated", entry: #"{"title":"Plans","tags":["q3"],"metadata":null}"#),
        .create(documentID: "d", title: "", tags: [], metadata: nil),
        .create(documentID: "d", title: String(repeating: "t", count: 1024),
                tags: (0..<64).map { String(repeating: "x", count: $0 + 1) }, metadata: #"{"color":"blue"}"#),
    ]

    @Test(arguments: examples)
    func roundTripsAlsoInsideTheMultiplexedEnvelope(_ message: DirectoryMessage) throws {
        let wrapped = AccordMessage.directory(message)
        #expect(try AccordMessage.decode(try wrapped.encode()) == wrapped)
        let envelope = try MultiplexedFrame(wrapped)
        let decoded = try MultiplexedFrame.decode(try envelope.encode())
        #expect(decoded.accordMessage == wrapped)
        // The events are connection-wide; a create travels under its document.
        if case .create = message {
            #expect(decoded.documentID == message.subjectDocumentID)
        } else {
            #expect(decoded.documentID == nil)
        }
    }

    @Test func anEventUnderADocumentEnvelopeIsMalformed() throws {
        let event = try AccordMessage.directory(.entryChanged(documentID: "d", action: "deleted", entry: nil)).frame()
        var bytes = [UInt8(1), UInt8(ascii: "d")]
        bytes += event.encode()
        #expect { try MultiplexedFrame.decode(bytes) } throws: { ($0 as? AccordError)?.code == .malformedMessage }
    }

    static let invalidToSend: [DirectoryMessage] = [
        .permissionChanged(documentID: "", permission: "reader", previous: nil, cause: "grant"),
        .permissionChanged(documentID: "d", permission: "admin", previous: nil, cause: "grant"),
        .permissionChanged(documentID: "d", permission: "reader", previous: "reader", cause: "grant"),
        .permissionChanged(documentID: "d", permission: nil, previous: nil, cause: "revoke"),
        .permissionChanged(documentID: "d", permission: "reader", previous: nil, cause: ""),
        .permissionChanged(documentID: "d", permission: "reader", previous: nil, cause: String(repeating: "c", count: 65)),
        .permissionChanged(documentID: "d", permission: "reader", previous: nil, cause: "a\nb"),
        .entryChanged(documentID: "d", action: "updated", entry: nil),
        .entryChanged(documentID: "d", action: "updated", entry: "[1]"),
        .entryChanged(documentID: "d", action: "updated", entry: "{"),
        .entryChanged(documentID: "d", action: "deleted", entry: "{}"),
        .entryChanged(documentID: "d", action: "evicted", entry: nil),
        .create(documentID: "d", title: String(repeating: "t", count: 1025), tags: [], metadata: nil),
        .create(documentID: "d", title: "", tags: [""], metadata: nil),
        .create(documentID: "d", title: "", tags: [String(repeating: "x", count: 257)], metadata: nil),
        .create(documentID: "d", title: "", tags: Array(repeating: "x", count: 65), metadata: nil),
        .create(documentID: "d", title: "", tags: [], metadata: "{"),
        .create(documentID: "d", title: "", tags: [], metadata: "undefined"),
        .create(documentID: "d", title: "", tags: [], metadata: "\"" + String(repeating: "m", count: 4095) + "\""),
        .create(documentID: "x/../y", title: "", tags: [], metadata: nil),
    ]

    @Test(arguments: invalidToSend)
    func invalidMessagesAreRefusedWhenEncodedAndWhenDecoded(_ message: DirectoryMessage) throws {
        #expect { try AccordMessage.directory(message).encode() } throws: {
            ($0 as? AccordError)?.code == .invalidArgument
        }
        // The same bytes written without the check are malformed for a decoder.
        var w = ByteWriter()
        w.writeVarUInt(AccordMessage.frameType)
        message.write(to: &w)
        #expect { try AccordMessage.decode(w.bytes) } throws: { ($0 as? AccordError)?.code == .malformedMessage }
    }

    @Test func everyTruncationAndTrailingByteIsMalformed() throws {
        for message in Self.examples {
            let bytes = try AccordMessage.directory(message).encode()
            for cut in 1..<bytes.count {
                #expect { try AccordMessage.decode(Array(bytes.prefix(cut))) } throws: {
                    ($0 as? AccordError)?.code == .malformedMessage
                }
            }
            #expect { try AccordMessage.decode(bytes + [0]) } throws: { ($0 as? AccordError)?.code == .malformedMessage }
        }
    }

    @Test func unknownSubtypesAndMarkersAreMalformed() {
        for subtype in [UInt8(23), 29, 19] {
            #expect { try AccordMessage.decode([100, subtype, 1, UInt8(ascii: "d")]) } throws: {
                ($0 as? AccordError)?.code == .malformedMessage
            }
        }
        // Optional marker 2 where a permission goes.
        let bytes = AccordMessageFixtures.bytes("64 14 01 64 02 00 05 6772616e74")
        #expect { try AccordMessage.decode(bytes) } throws: { ($0 as? AccordError)?.code == .malformedMessage }
    }

    @Test func aHugeTagCountIsRefusedBeforeAnythingIsAllocated() {
        // 2^62 tags claimed in a 12-byte message.
        let bytes = AccordMessageFixtures.bytes("64 16 01 64 00 80808080808080808040")
        #expect { try AccordMessage.decode(bytes) } throws: { ($0 as? AccordError)?.code == .malformedMessage }
        // 65 tags, over the limit, whatever follows.
        let over = AccordMessageFixtures.bytes("64 16 01 64 00 41")
        #expect { try AccordMessage.decode(over) } throws: { ($0 as? AccordError)?.code == .malformedMessage }
    }
}
