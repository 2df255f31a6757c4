import AccordTesting
import Testing
@testable import AccordCRDT

/// The position index that makes repeated resolves cheap (``PositionIndex``): resolves
/// through it always equal the list walk's, across local and remote edits, deletions,
/// undo, rolled-back transactions and resolves made inside a transaction.
@Suite struct PositionIndexTests {
    /// The walk's answer, the index's reference (no cache involved).
    static func walked(_ doc: Doc, _ position: RelativePosition) -> Int? {
        guard let id = position.item else { return doc.resolve(position)?.index }
        guard let client = doc.store.clientIndex[id.client], let ref = doc.store.find(client: client, clock: UInt32(id.clock))
        else { return nil }
        let item = doc.store.items[Int(ref)]
        guard !item.redone else { return doc.resolve(position)?.index }  // followed copies: not what this test is about
        let within = (item.deleted || !item.isCountable) ? 0 : id.clock - Int(item.clock) + (position.association == .after ? 0 : 1)
        return within + doc.store.visibleUnits(before: ref, in: item.parent)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func resolvesMatchTheWalkAcrossRandomEdits(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let doc = Doc(clientID: 1)
        let remote = Doc(clientID: 2)
        let text = try doc.getText("t")
        let remoteText = try remote.getText("t")
        try text.insert(0, String(repeating: "abcdefghij", count: 20))
        try remote.applyUpdate(doc.encodeStateAsUpdate())
        var positions: [RelativePosition] = []
        for step in 0..<300 {
            // An edit: local or remote, insert or delete, sometimes a failing transaction.
            switch rng.next() % 6 {
            case 0, 1:
                try text.insert(Int(rng.next() % UInt64(text.length + 1)), "xy\(step)")
            case 2 where text.length > 4:
                let at = Int(rng.next() % UInt64(text.length - 3))
                try text.delete(at, 1 + Int(rng.next() % 3))
            case 3:
                try remote.applyUpdate(doc.encodeStateAsUpdate(from: remote.encodeStateVector()))
                try remoteText.insert(Int(rng.next() % UInt64(remoteText.length + 1)), "R")
                try doc.applyUpdate(remote.encodeStateAsUpdate(from: doc.encodeStateVector()))
            case 4:
                struct Abandon: Error {}
                _ = try? doc.transact { () throws -> Void in
                    try text.insert(0, "gone")
                    throw Abandon()
                }
            default:
                break
            }
            if text.length > 0, positions.count < 40 {
                let at = Int(rng.next() % UInt64(text.length))
                positions.append(try text.relativePosition(at: at, association: rng.next() % 2 == 0 ? .after : .before))
            }
            // Three rounds, so the index is built and then read.
            for _ in 0..<3 {
                for (i, position) in positions.enumerated() {
                    #expect(doc.resolve(position)?.index == Self.walked(doc, position), "seed \(seed) step \(step) position \(i)")
                }
            }
        }
    }

    @Test func aPositionStaysNextToItsCharacterAndFollowsUndo() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        try text.insert(0, "hello world")
        let undo = UndoManager(text, options: .init(captureTimeout: 0))
        let w = try text.relativePosition(at: 6)  // "w"
        for _ in 0..<3 { #expect(doc.resolve(w)?.index == 6) }
        try text.insert(0, ">> ")
        for _ in 0..<3 { #expect(doc.resolve(w)?.index == 9) }
        try text.delete(0, 5)
        for _ in 0..<3 { #expect(doc.resolve(w)?.index == 4) }
        #expect(try undo.undo())
        for _ in 0..<3 { #expect(doc.resolve(w)?.index == 9) }
        // Deleted: it resolves where the content was.
        try text.delete(8, 3)
        for _ in 0..<3 { #expect(doc.resolve(w)?.index == 8) }
        #expect(try undo.undo())  // the deleted "wor" comes back as a copy: followed
        for _ in 0..<3 { #expect(doc.resolve(w)?.index == 9) }
    }

    @Test func resolvesInsideATransactionSeeItsEdits() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        try text.insert(0, "0123456789")
        let five = try text.relativePosition(at: 5)
        for _ in 0..<3 { #expect(doc.resolve(five)?.index == 5) }  // an index exists now
        try doc.transact {
            try text.insert(0, "ab")
            #expect(doc.resolve(five)?.index == 7)
            #expect(doc.resolve(five)?.index == 7)
            try text.delete(0, 1)
            #expect(doc.resolve(five)?.index == 6)
        }
        for _ in 0..<3 { #expect(doc.resolve(five)?.index == 6) }
        // And from an observer, while the transaction's clean-up runs.
        var seen: [Int?] = []
        let subscription = text.observe { _ in seen.append(doc.resolve(five)?.index); seen.append(doc.resolve(five)?.index) }
        try text.insert(0, "zz")
        #expect(seen == [8, 8])
        _ = subscription
    }
}
