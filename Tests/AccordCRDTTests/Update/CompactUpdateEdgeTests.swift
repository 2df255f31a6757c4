import Testing

@testable import AccordCRDT

/// The compact parser's own readers (unchecked buffer reads, eight-byte ASCII blocks):
/// text with multi-byte UTF-8 and surrogate pairs at every
/// position of an eight-byte block decodes as the general decoder does, and malformed
/// strings and varints anywhere in such a block are rejected with MALFORMED_UPDATE,
/// leaving the document unchanged.
@Suite struct CompactUpdateEdgeTests {
    /// One client group of one root string item, then an empty delete set.
    static func update(client: UInt64 = 3_000_000_000, text raw: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.writeVarUInt(1)  // client groups
        w.writeVarUInt(1)  // structs
        w.writeVarUInt(client)
        w.writeVarUInt(0)  // clock
        w.writeUInt8(4)  // string content, no origins: a root parent follows
        w.writeVarUInt(1)
        w.writeVarString("t")
        w.writeVarUInt(raw.count)
        w.writeRaw(raw)
        w.writeVarUInt(0)  // delete set
        return w.bytes
    }

    @Test func decodesTextAsTheGeneralDecoderDoes() throws {
        let pieces = ["é", "€", "😀", "\u{10FFFF}", "\u{7F}", "\u{80}", "\u{7FF}", "\u{800}", "\u{FFFF}", "\u{10000}"]
        for piece in pieces {
            for at in 0...17 {
                let s = String(repeating: "a", count: at) + piece + String(repeating: "b", count: 17 - at)
                let bytes = Self.update(text: Array(s.utf8))
                let compact = try #require(CompactUpdate(bytes), "\(piece) at \(at)")
                let decoded = try DecodedUpdate.decode(bytes)
                #expect(compact.entries.map { compact.updateStruct($0) } == decoded.groups[0].structs, "\(piece) at \(at)")
                let doc = Doc(clientID: 1)
                try doc.applyUpdate(bytes)
                #expect(try doc.getText("t").string == s)
                #expect(doc.encodeStateAsUpdate() == bytes, "\(piece) at \(at)")
            }
        }
    }

    @Test func rejectsMalformedTextAnywhereInABlock() throws {
        let bad: [[UInt8]] = [
            [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2], [0xE0, 0x80, 0x80], [0xE0, 0xA0],
            [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xE2, 0x82, 0x41], [0xF0, 0x9F, 0x98],
        ]
        for sequence in bad {
            for at in 0...17 {
                let raw = Array(repeating: UInt8(ascii: "a"), count: at) + sequence
                    + Array(repeating: UInt8(ascii: "b"), count: 17 - at)
                try Self.expectRejected(Self.update(text: raw), "\(sequence) at \(at)")
                // Cut off at the string's end as well.
                try Self.expectRejected(Self.update(text: Array(repeating: UInt8(ascii: "a"), count: at) + sequence),
                                        "\(sequence) at the end after \(at)")
            }
        }
    }

    @Test func readsVarintsOfEveryLength() throws {
        // Client IDs of every varint length the general decoder takes, near the end of the
        // input and not: a one-struct update's client is followed by about 10 bytes.
        for shift in stride(from: 0, to: 64, by: 7) {
            for client in [UInt64(1) << shift, (UInt64(1) << shift) &- 1, UInt64.max >> (63 - shift)] where client > 0 {
                let bytes = Self.update(client: client, text: Array("hello".utf8))
                guard client <= ID.maxSafeClient else {
                    // Read in full, then left to the general path, which alone decides on
                    // ids JavaScript cannot hold (Doc.strictClientIDs); by default it takes them.
                    #expect(CompactUpdate(bytes) == nil, "client \(client)")
                    let doc = Doc(clientID: 1)
                    try doc.applyUpdate(bytes)
                    #expect(try doc.getText("t").string == "hello", "client \(client)")
                    continue
                }
                let compact = try #require(CompactUpdate(bytes), "client \(client)")
                #expect(compact.client == client)
                #expect(compact.entries.map { compact.updateStruct($0) } == (try DecodedUpdate.decode(bytes)).groups[0].structs)
            }
        }
    }

    @Test func rejectsMalformedVarints() throws {
        let good = Self.update(text: Array("hello".utf8))
        // The client varint starts at byte 2: replace it with overlong and overflowing ones.
        let clientEnd = 2 + 5
        let badVarints: [[UInt8]] = [
            Array(repeating: 0xFF, count: 10) + [0x01],  // 11 bytes
            Array(repeating: 0xFF, count: 9) + [0x02],  // overflows 64 bits
            Array(repeating: 0x80, count: 10) + [0x00],
            Array(repeating: 0xFF, count: 20),  // never ends
        ]
        for varint in badVarints {
            try Self.expectRejected(Array(good[..<2]) + varint + Array(good[clientEnd...]), "\(varint)")
            try Self.expectRejected(Array(good[..<2]) + varint, "\(varint) at the end")
        }
        // Every truncation of a valid update.
        for n in 0..<good.count where n > 0 {
            try Self.expectRejected(Array(good[..<n]), "cut at \(n)")
        }
    }

    /// A struct group of `client` from `clock`: `structs` writes the structs.
    static func group(client: UInt64, clock: Int, count: Int, _ structs: (inout ByteWriter) -> Void) -> [UInt8] {
        var w = ByteWriter()
        w.writeVarUInt(1)
        w.writeVarUInt(count)
        w.writeVarUInt(client)
        w.writeVarUInt(clock)
        structs(&w)
        w.writeVarUInt(0)
        return w.bytes
    }

    /// A document without text takes the update's text buffer as its own; one with text
    /// copies each item's units. Both give the same text, for a string entry of which
    /// the document already knows the first units (cut inside a surrogate pair).
    @Test func sliceOfAKnownEntryWithAndWithoutText() throws {
        let deleted = Self.group(client: 5, clock: 0, count: 1) { w in
            w.writeUInt8(1)  // deleted content of 3 units in root "t"
            w.writeVarUInt(1)
            w.writeVarString("t")
            w.writeVarUInt(3)
        }
        let string = Self.group(client: 5, clock: 0, count: 1) { w in
            w.writeUInt8(4)
            w.writeVarUInt(1)
            w.writeVarString("t")
            w.writeVarString("ab😀cd")  // units a b D83D DE00 c d: the doc knows 0..<3
        }
        for hasText in [false, true] {
            let doc = Doc(clientID: 1)
            if hasText { try doc.getText("other").insert(0, "x") }
            try doc.applyUpdate(deleted)
            try doc.applyUpdate(string)
            #expect(try doc.getText("t").string == "\u{FFFD}cd", "has text: \(hasText)")
            #expect(!doc.hasPendingUpdates)
        }
    }

    /// Entries after one that waits for a missing client go to the general path, their
    /// text taken from the adopted buffer; once the client arrives, the text is whole.
    @Test func pendingRestWithAdoptedText() throws {
        let writer = Doc(clientID: 10)
        let other = Doc(clientID: 20)
        try other.getText("t").insert(0, "0123456789")
        let first = other.encodeStateAsUpdate()
        try writer.getText("t").insert(0, "héllo ")  // integrates at once
        try writer.applyUpdate(first)
        try writer.getText("t").insert(9, "wo😀rld")  // after client 20's text: waits for it
        let ownOnly = try writer.encodeStateAsUpdate(from: other.encodeStateVector())
        for order in [[ownOnly, first], [first, ownOnly]] {
            let doc = Doc(clientID: 1)
            for update in order { try doc.applyUpdate(update) }
            #expect(try doc.getText("t").string == writer.getText("t").string)
            #expect(!doc.hasPendingUpdates)
            #expect(doc.encodeStateAsUpdate() == writer.encodeStateAsUpdate())
        }
    }

    /// Applying `bytes` throws MALFORMED_UPDATE and leaves a document with content unchanged.
    static func expectRejected(_ bytes: [UInt8], _ label: String) throws {
        #expect(CompactUpdate(bytes) == nil, "\(label)")
        let doc = Doc(clientID: 7)
        try doc.getText("t").insert(0, "keep")
        let before = doc.encodeStateAsUpdate()
        do {
            try doc.applyUpdate(bytes)
            Issue.record("\(label): accepted")
        } catch {
            #expect(error.code == .malformedUpdate, "\(label): \(error)")
        }
        #expect(doc.encodeStateAsUpdate() == before, "\(label)")
        #expect(try doc.getText("t").string == "keep", "\(label)")
    }
}
