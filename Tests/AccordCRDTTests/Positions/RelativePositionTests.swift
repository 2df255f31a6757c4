import AccordCRDT
import AccordTesting
import Testing

/// Relative positions: Yjs's bytes and JSON (pycrdt's sticky indices as the reference),
/// and resolution that follows the content on every replica.
@Suite struct RelativePositionTests {
    static let text = EditTarget(root: "t", rootKind: .text)
    static let array = EditTarget(root: "a", rootKind: .array)

    /// The same edits on an Accord and a pycrdt replica (client 5), then every position
    /// pycrdt can make, compared byte for byte and resolved on both.
    @Test func bytesAndJSONEqualPycrdts() throws {
        let peer = try PycrdtPeer()
        defer { peer.close() }
        try peer.newDoc("A", clientID: 5)
        let doc = Doc(clientID: 5)
        let ops: [EditOperation] = [
            .textInsert(Self.text, index: 0, text: "hello world", attributes: nil),
            .textInsert(Self.text, index: 5, text: " brave", attributes: nil),
            .textDelete(Self.text, index: 2, length: 3),
            .textFormat(Self.text, index: 0, length: 4, attributes: ["bold": true]),
            .arrayInsert(Self.array, index: 0, values: [.plain(1), .plain(2), .plain(3)]),
            .arrayInsert(Self.array, index: 1, values: [.plain("x")]),
        ]
        for op in ops {
            try doc.perform(op)
            try peer.perform(op, on: "A")
        }
        let text = try doc.getText("t")
        let array = try doc.getArray("a")
        for (target, length) in [(Self.text, text.length), (Self.array, array.count)] {
            // pycrdt cannot make the type-only positions (after the end, before the start).
            for index in 0...length {
                for before in [false, true] where before ? index > 0 : index < length {
                    let ours = target.rootKind == .text
                        ? try text.relativePosition(at: index, association: before ? .before : .after)
                        : try array.relativePosition(at: index, association: before ? .before : .after)
                    let theirs = try peer.stickyIndex(on: "A", target, index: index, before: before)
                    #expect(ours.encode() == theirs.bytes, "\(target) \(index) before: \(before)")
                    let fromJSON = try RelativePosition(json: theirs.json)
                    #expect(fromJSON.item == ours.item && fromJSON.assoc == ours.assoc)
                    #expect(try RelativePosition(decoding: theirs.bytes) == RelativePosition(json: ours.json).withoutType)
                    #expect(doc.resolve(ours)?.index == index)
                    #expect(try peer.resolveStickyIndex(ours.encode(), on: "A", target) == index)
                }
            }
        }
    }

    @Test func typeOnlyPositionsUseYjssForm() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        try text.insert(0, "ab")
        let end = try text.relativePosition(at: 2)
        #expect(end.encode() == [1, 1, 0x74, 0])
        #expect(end.json == ["tname": "t", "assoc": 0])
        let start = try text.relativePosition(at: 0, association: .before)
        #expect(start.encode() == [1, 1, 0x74, 0x41])
        try text.insert(0, "xy")
        #expect(doc.resolve(end)?.index == 4)
        #expect(doc.resolve(start)?.index == 0)
        let nested = try doc.getMap("m").setText("inner")
        let inNested = try nested.relativePosition(at: 0)
        #expect(inNested.encode().first == 2)
        #expect(doc.resolve(inNested)?.index == 0)
    }

    @Test func aDeletedUnitResolvesToWhereItWas() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        try text.insert(0, "abcdef")
        let atD = try text.relativePosition(at: 3)
        try text.delete(2, 3)
        #expect(text.string == "abf")
        #expect(doc.resolve(atD)?.index == 2)
    }

    @Test func malformedInputIsRefused() throws {
        for bytes: [UInt8] in [[], [3, 0, 0], [0, 5], [1, 9, 0x61], [0, 1, 2, 0, 7]] {
            let error = #expect(throws: AccordError.self) { try RelativePosition(decoding: bytes) }
            #expect(error?.code == .invalidArgument, "\(bytes)")
        }
        for json: AnyValue in [1, [:], ["item": 3], ["item": ["client": -1, "clock": 0]], ["tname": 4], ["tname": "t", "assoc": "x"]] {
            let error = #expect(throws: AccordError.self) { try RelativePosition(json: json) }
            #expect(error?.code == .invalidArgument, "\(json.jsonText)")
        }
        // Positions naming what a replica has not seen resolve to nothing.
        let doc = Doc(clientID: 1)
        #expect(doc.resolve(RelativePosition(type: nil, typeName: nil, item: ID(client: 9, clock: 4), assoc: 0)) == nil)
        #expect(doc.resolve(RelativePosition(type: nil, typeName: "missing", item: nil, assoc: 0)) == nil)
    }

    /// A selection on one replica, random concurrent edits on three, full exchange:
    /// every replica (pycrdt too) resolves it to the same offsets.
    @Test(arguments: 0..<10 as Range<UInt64>)
    func positionsFollowTheirCharactersOnEveryReplica(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let peer = try PycrdtPeer()
        defer { peer.close() }
        try peer.newDoc("P", clientID: 30)
        let docs = [Doc(clientID: 10), Doc(clientID: 20)]
        let base = try docs[0].getText("t")
        try base.insert(0, "the quick brown fox jumps over the lazy dog")
        let start = try docs[0].encodeStateAsUpdate()
        try docs[1].applyUpdate(start)
        try peer.applyUpdate(start, to: "P")
        let from = Int.random(in: 0...base.length, using: &rng)
        let to = Int.random(in: from...base.length, using: &rng)
        let range = try base.indexRangeToPosRange(from, to)
        // Concurrent edits: plain ASCII so that pycrdt's offsets agree.
        for _ in 0..<12 {
            let which = Int.random(in: 0..<3, using: &rng)
            let length = which < 2 ? try docs[which].getText("t").length : (try peer.json("P", schema: .init(roots: [.init("t", .text)]))
                .objectValue?["t"]?.objectValue?["string"]?.stringValue?.utf16.count ?? 0)
            let op: EditOperation = length > 0 && rng.chance(0.4)
                ? .textDelete(Self.text, index: Int.random(in: 0..<length, using: &rng), length: 1)
                : .textInsert(Self.text, index: Int.random(in: 0...length, using: &rng), text: ["X", "yz", " "].randomElement(using: &rng)!, attributes: nil)
            if which < 2 { try docs[which].perform(op) } else { try peer.perform(op, on: "P") }
        }
        let fromPeer = try peer.encodeStateAsUpdate("P")
        for doc in docs { try doc.applyUpdate(fromPeer) }
        try docs[1].applyUpdate(docs[0].encodeStateAsUpdate())
        try docs[0].applyUpdate(docs[1].encodeStateAsUpdate())
        try peer.applyUpdate(docs[0].encodeStateAsUpdate(), to: "P")
        let resolved = try docs.map { try #require($0.getText("t").posRangeToIndexRange(range)) }
        #expect(resolved[0] == resolved[1], "seed \(seed)")
        #expect(try peer.resolveStickyIndex(range.start.encode(), on: "P", Self.text) == resolved[0].start, "seed \(seed)")
        #expect(try peer.resolveStickyIndex(range.end.encode(), on: "P", Self.text) == resolved[0].end, "seed \(seed)")
    }
}

extension RelativePosition {
    /// The binary form carries the item alone when there is one.
    var withoutType: RelativePosition {
        item == nil ? self : RelativePosition(type: nil, typeName: nil, item: item, assoc: assoc)
    }
}
