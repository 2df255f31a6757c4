import Testing
@testable import AccordCRDT

@Suite struct AwarenessUpdateTests {
    @Test func singleClientUpdateMatchesGoldenBytes() throws {
        let bytes = ProtocolFixtures.awarenessBytes("update_hex")
        let expected = try ProtocolFixtures.entries("update_entries")
        let decoded = try AwarenessUpdate.decode(bytes)
        #expect(decoded.entries == expected)
        // Re-encoding keeps the peer's key order, so the bytes are identical.
        #expect(decoded.encode() == bytes)
        #expect(decoded.entries.first?.state?.objectValue?.keys == ["user", "cursor"])
    }

    @Test func removalIsTheJSONTextNull() throws {
        let bytes = ProtocolFixtures.awarenessBytes("removal_update_hex")
        let removal = AwarenessUpdate([.init(clientID: 42, clock: 2, state: nil)])
        #expect(removal.encode() == bytes)
        #expect(try AwarenessUpdate.decode(bytes) == removal)
        // JSON null and undefined are spelled nil, so they compare equal to a removal.
        #expect(AwarenessUpdate.Entry(clientID: 42, clock: 2, state: .null) == removal.entries[0])
        #expect(AwarenessUpdate.Entry(clientID: 42, clock: 2, state: .undefined).state == nil)
    }

    @Test func multiClientUpdateUsesUTF8ByteLengths() throws {
        let bytes = ProtocolFixtures.awarenessBytes("multi_client_update_hex")
        let expected = try ProtocolFixtures.entries("multi_client_entries")
        #expect(try AwarenessUpdate.decode(bytes).entries == expected)
        #expect(AwarenessUpdate(expected).encode() == bytes)
        #expect(expected[1].clientID == 3_000_000_000)
    }

    @Test func roundTripsVariedStates() throws {
        let update = AwarenessUpdate([
            .init(clientID: 0, clock: 0, state: [:]),
            .init(clientID: 1, clock: AwarenessUpdate.maxClock, state: ["a": [1, 2.5, "x", nil, true]]),
            .init(clientID: UInt64(UInt32.max), clock: 7, state: nil),
            .init(clientID: 9, clock: 1, state: ["quote": "\"\\\n\u{01}", "emoji": "👩‍💻"]),
        ])
        #expect(try AwarenessUpdate.decode(update.encode()) == update)
        #expect(AwarenessUpdate().encode() == [0])
        #expect(try AwarenessUpdate.decode([0]) == AwarenessUpdate())
    }

    @Test func malformedUpdatesThrowMalformedMessage() throws {
        func text(_ s: String) -> [UInt8] { [UInt8(s.utf8.count)] + Array(s.utf8) }
        let cases: [(String, [UInt8])] = [
            ("empty input", []),
            ("count larger than the input", [0x05, 0x01, 0x01, 0x00]),
            ("truncated entry", [0x01, 0x2a]),
            ("bad JSON", [0x01, 0x2a, 0x01] + text("{")),
            ("undefined is not JSON", [0x01, 0x2a, 0x01] + text("undefined")),
            ("empty JSON text", [0x01, 0x2a, 0x01, 0x00]),
            ("invalid UTF-8", [0x01, 0x2a, 0x01, 0x02, 0xc3, 0x28]),
            ("clock above 2^53-1", [0x01, 0x2a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10] + text("{}")),
            ("client id above 2^53-1", [0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10, 0x01] + text("{}")),
            ("trailing byte", [0x01, 0x2a, 0x01] + text("{}") + [0x00]),
        ]
        for (name, bytes) in cases {
            let error = #expect(throws: AccordError.self, "\(name)") { try AwarenessUpdate.decode(bytes) }
            #expect(error?.code == .malformedMessage, "\(name)")
        }
        // 2^53-1 itself is accepted.
        let maxClock: [UInt8] = [0x01, 0x2a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f] + text("{}")
        #expect(try AwarenessUpdate.decode(maxClock).entries.first?.clock == AwarenessUpdate.maxClock)
        let maxClient: [UInt8] = [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01] + text("{}")
        #expect(try AwarenessUpdate.decode(maxClient).entries.first?.clientID == AwarenessUpdate.maxClock)
    }
}
