import Testing
@testable import AccordCRDT

@Suite struct SyncMessageTests {
    @Test func step1FramesMatchGoldenVectors() throws {
        let fromA = ProtocolFixtures.syncBytes("sync_step1_from_A_hex")
        let frame = try ProtocolFrame.decode(fromA)
        guard case .sync(.step1(let sv)) = frame else {
            Issue.record("expected sync step 1, got \(frame)")
            return
        }
        #expect(try StateVector.decode(sv) == StateVector([1: 2]))
        #expect(ProtocolFrame.sync(.step1(stateVector: StateVector([1: 2]).encode())).encode() == fromA)

        let fromB = ProtocolFixtures.syncBytes("sync_step1_from_B_hex")
        #expect(ProtocolFrame.sync(.step1(stateVector: StateVector([2: 1]).encode())).encode() == fromB)

        let empty = ProtocolFixtures.syncBytes("empty_doc_step1_hex")
        let emptySV = ProtocolFixtures.syncBytes("empty_doc_state_vector_hex")
        #expect(try ProtocolFrame.decode(empty) == .sync(.step1(stateVector: emptySV)))
        #expect(ProtocolFrame.sync(.step1(stateVector: StateVector().encode())).encode() == empty)
    }

    @Test func step2AndUpdateFramesMatchGoldenVectors() throws {
        let step2A = ProtocolFixtures.syncBytes("sync_step2_from_A_hex")
        let update = Array(step2A.dropFirst(3))  // outer 00, sync 01, length 0c
        #expect(update.count == 12)
        #expect(try ProtocolFrame.decode(step2A) == .sync(.step2(update: update)))
        #expect(ProtocolFrame.sync(.step2(update: update)).encode() == step2A)

        let updateFrame = ProtocolFixtures.syncBytes("update_message_hex")
        #expect(try ProtocolFrame.decode(updateFrame) == .sync(.update(update)))
        #expect(ProtocolFrame.sync(.update(update)).encode() == updateFrame)

        let step2B = ProtocolFixtures.syncBytes("sync_step2_from_B_hex")
        let decoded = try ProtocolFrame.decode(step2B)
        #expect(decoded.encode() == step2B)
        guard case .sync(.step2(let payload)) = decoded else {
            Issue.record("expected sync step 2, got \(decoded)")
            return
        }
        #expect(payload.count == 15)

        let emptyUpdate = ProtocolFixtures.syncBytes("empty_doc_update_hex")
        #expect(ProtocolFrame.sync(.step2(update: emptyUpdate)).encode() == [0, 1, 2, 0, 0])
    }

    @Test func innerMessageEncodingHasNoOuterType() throws {
        let message = SyncMessage.update([0xaa, 0xbb])
        #expect(message.encode() == [0x02, 0x02, 0xaa, 0xbb])
        #expect(try SyncMessage.decode(message.encode()) == message)
        #expect(SyncMessage.step1(stateVector: [0]).encode() == [0x00, 0x01, 0x00])
        #expect(SyncMessage.step2(update: []).payload == [])
    }

    @Test func decodeFromReaderStopsAfterTheMessage() throws {
        // The reader's own error code must not leak: protocol failures are MALFORMED_MESSAGE.
        var reader = ByteReader([0x01, 0x01, 0x07, 0xff])
        #expect(try SyncMessage.decode(from: &reader) == .step2(update: [0x07]))
        #expect(reader.position == 3)

        var bad = ByteReader([0x09, 0x00])
        let error = #expect(throws: AccordError.self) { try SyncMessage.decode(from: &bad) }
        #expect(error?.code == .malformedMessage)
        var truncated = ByteReader([0x00, 0x05, 0x00])
        let truncatedError = #expect(throws: AccordError.self) { try SyncMessage.decode(from: &truncated) }
        #expect(truncatedError?.code == .malformedMessage)
    }

    @Test func unknownSyncTypeAndTrailingBytesAreRejected() {
        for bytes: [UInt8] in [
            [0x00, 0x03, 0x00],              // sync type 3 does not exist
            [0x00, 0x00, 0x01, 0x00, 0xff],  // trailing byte after step 1
            [0x00],                          // outer type without a message
            [],                              // nothing at all
        ] {
            let error = #expect(throws: AccordError.self) { try ProtocolFrame.decode(bytes) }
            #expect(error?.code == .malformedMessage)
        }
        let inner = #expect(throws: AccordError.self) { try SyncMessage.decode([0x02, 0x00, 0x00]) }
        #expect(inner?.code == .malformedMessage)
    }
}

@Suite struct ProtocolFrameTests {
    @Test func awarenessAndQueryFramesMatchGoldenVectors() throws {
        let update = ProtocolFixtures.awarenessBytes("update_hex")
        let frame = ProtocolFixtures.awarenessBytes("websocket_frame_hex")
        #expect(ProtocolFrame.awareness(update).encode() == frame)
        #expect(try ProtocolFrame.decode(frame) == .awareness(update))

        let removal = ProtocolFixtures.awarenessBytes("removal_update_hex")
        let removalFrame = ProtocolFixtures.awarenessBytes("removal_websocket_frame_hex")
        #expect(ProtocolFrame.awareness(removal).encode() == removalFrame)
        #expect(try ProtocolFrame.decode(removalFrame) == .awareness(removal))

        let query = ProtocolFixtures.awarenessBytes("query_awareness_frame_hex")
        #expect(ProtocolFrame.queryAwareness.encode() == query)
        #expect(try ProtocolFrame.decode(query) == .queryAwareness)
    }

    @Test func authFramesRoundTrip() throws {
        let denied = ProtocolFrame.auth(.permissionDenied(reason: "no"))
        #expect(denied.encode() == [0x02, 0x00, 0x02, 0x6e, 0x6f])
        #expect(try ProtocolFrame.decode(denied.encode()) == denied)
        // Yrs's "granted" is a bare vu(1).
        #expect(ProtocolFrame.auth(.permissionGranted).encode() == [0x02, 0x01])
        #expect(try ProtocolFrame.decode([0x02, 0x01]) == .auth(.permissionGranted))
        let unicode = ProtocolFrame.auth(.permissionDenied(reason: "accès refusé 🚫"))
        #expect(try ProtocolFrame.decode(unicode.encode()) == unicode)
    }

    @Test func malformedKnownFramesAreRejected() {
        for bytes: [UInt8] in [
            [0x02, 0x05],                    // unknown auth type
            [0x02, 0x01, 0x00],              // trailing byte after "granted"
            [0x02, 0x00, 0x02, 0x6e],        // truncated reason
            [0x02, 0x00, 0x01, 0xff],        // reason is not UTF-8
            [0x03, 0x00],                    // queryAwareness has no body
            [0x01, 0x02, 0x00],              // awareness length runs past the end
            [0x01, 0x01, 0x00, 0x00],        // trailing byte after the awareness update
            [0x80],                          // truncated outer type
        ] {
            let error = #expect(throws: AccordError.self) { try ProtocolFrame.decode(bytes) }
            #expect(error?.code == .malformedMessage, "\(bytes)")
        }
    }

    @Test func unknownOuterTypesAreKeptAsCustom() throws {
        let frames: [ProtocolFrame] = [
            .custom(type: 4, body: []),
            .custom(type: 100, body: [1, 2, 3]),
            .custom(type: 300, body: [0xff, 0x00]),  // two-byte varUint type
            .custom(type: UInt64.max, body: [7]),
        ]
        for frame in frames {
            #expect(try ProtocolFrame.decode(frame.encode()) == frame)
        }
        #expect(ProtocolFrame.custom(type: 100, body: [1, 2, 3]).encode() == [100, 1, 2, 3])
        #expect(ProtocolFrame.custom(type: 300, body: []).encode() == [0xac, 0x02])
        #expect(ProtocolFrame.custom(type: 300, body: []).type == 300)
        // A Yrs custom message (tag byte · vb(data)) survives untouched.
        #expect(try ProtocolFrame.decode([0x7f, 0x02, 0xaa, 0xbb]) == .custom(type: 127, body: [0x02, 0xaa, 0xbb]))
    }

    @Test func frameTypesAreTheYProtocolsNumbers() {
        #expect(ProtocolFrame.sync(.update([])).type == 0)
        #expect(ProtocolFrame.awareness([]).type == 1)
        #expect(ProtocolFrame.auth(.permissionGranted).type == 2)
        #expect(ProtocolFrame.queryAwareness.type == 3)
    }
}
