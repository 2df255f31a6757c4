import AccordCRDT
import AccordTesting
import Testing

/// A transaction whose body throws leaves the document byte-identical and emits nothing.
@Suite struct RollbackTests {
    struct Boom: Error {}

    /// Everything a failed transaction must not change.
    struct Snapshot: Equatable {
        var update: [UInt8]
        var stateVector: [UInt8]
        var json: AnyValue

        init(_ doc: Doc) throws {
            update = doc.encodeStateAsUpdate()
            stateVector = doc.encodeStateVector()
            json = try DocumentSchema.standard.comparableJSON(of: doc)
        }
    }

    private func seeded(_ doc: Doc) throws {
        let text = try doc.getText("t")
        try text.insert(0, "hello 😀 world")
        try text.format(0, 5, ["bold": true])
        try text.delete(2, 1)
        let map = try doc.getMap("m")
        try map.set("v0", 1)
        try map.setMap("m0").set("k", "v")
        try doc.getArray("a").insert(0, [1, 2, 3])
    }

    @Test func aBodyThatEditsSeveralTypesThenThrowsChangesNothing() throws {
        let doc = Doc(clientID: 1)
        try seeded(doc)
        let before = try Snapshot(doc)
        var updates = 0, events = 0
        doc.onUpdate { _, _ in updates += 1 }
        _ = try doc.getText("t").observe { _ in events += 1 }
        #expect(throws: Boom.self) {
            try doc.transact {
                let text = try doc.getText("t")
                try text.insert(3, "INSERTED")
                try text.format(1, 6, ["italic": true])
                try text.delete(0, 2)
                try text.insert(text.length, "typed")
                try text.delete(text.length - 2, 2)
                let map = try doc.getMap("m")
                try map.set("v0", "overwritten")
                try map.delete("m0")
                try map.setArray("new").insert(0, [1])
                let array = try doc.getArray("a")
                try array.delete(1, count: 1)
                try array.insertMap(0).set("x", 1)
                throw Boom()
            }
        }
        #expect(try Snapshot(doc) == before)
        #expect(updates == 0 && events == 0)
        // The document goes on working, and a replica fed its updates agrees.
        try doc.getText("t").insert(1, "ok")
        try doc.getMap("m").set("after", true)
        let replica = Doc(clientID: 2)
        try replica.applyUpdate(doc.encodeStateAsUpdate())
        #expect(try Snapshot(replica).json == Snapshot(doc).json)
    }

    @Test func typingAndBackspacingShortcutsAreRolledBack() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        try text.insert(0, "abc")
        try text.insert(3, "def")
        try text.delete(4, 2)
        let before = try Snapshot(doc)
        #expect(throws: Boom.self) {
            try doc.transact {
                try text.insert(4, "xy")   // appended to the newest item
                try text.delete(2, 4)      // joined to the deleted neighbour
                throw Boom()
            }
        }
        #expect(try Snapshot(doc) == before)
    }

    @Test func aTypeCreatedByTheFailedBodyIsGone() throws {
        let doc = Doc(clientID: 1)
        let map = try doc.getMap("m")
        var created: YMap?
        #expect(throws: Boom.self) {
            try doc.transact {
                created = try map.setMap("child")
                throw Boom()
            }
        }
        #expect(map.count == 0)
        let error = #expect(throws: AccordError.self) { try created?.set("k", 1) }
        #expect(error?.code == .invalidType)
    }

    @Test(arguments: 0..<24 as Range<UInt64>)
    func randomFailedBatchesLeaveTheDocumentAsItWas(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let schema = DocumentSchema.standard
        let editor = RandomEditor()
        let doc = Doc(clientID: 1)
        var updates: [[UInt8]] = []
        doc.onUpdate { update, _ in updates.append(update) }
        for round in 0..<6 {
            for _ in 0..<Int.random(in: 0...8, using: &rng) {
                try doc.perform(editor.nextOperation(view: try schema.editView(of: doc), using: &rng))
            }
            let before = try Snapshot(doc)
            let count = updates.count
            #expect(throws: Boom.self) {
                try doc.transact {
                    for _ in 0..<Int.random(in: 1...10, using: &rng) {
                        try doc.perform(editor.nextOperation(view: try schema.editView(of: doc), using: &rng))
                    }
                    throw Boom()
                }
            }
            #expect(try Snapshot(doc) == before, "seed \(seed) round \(round)")
            #expect(updates.count == count)
        }
        let replica = Doc(clientID: 2)
        for update in updates { try replica.applyUpdate(update) }
        #expect(try Snapshot(replica).json == Snapshot(doc).json, "seed \(seed)")
    }

    @Test func anOffsetInsideASurrogatePairIsRefused() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        try text.insert(0, "a😀b")
        let before = try Snapshot(doc)
        for attempt in [
            { try text.insert(2, "x") }, { try text.delete(2, 1) }, { try text.delete(0, 2) },
            { try text.format(2, 2, ["bold": true]) }, { try text.insertEmbed(2, "e") },
        ] as [() throws -> Void] {
            let error = #expect(throws: AccordError.self) { try attempt() }
            #expect(error?.code == .invalidArgument)
        }
        #expect(try Snapshot(doc) == before)
        try text.delete(1, 2)
        #expect(text.string == "ab")
    }

    @Test func aDeltaOpEndingInsideASurrogatePairIsRefusedWhole() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        try text.insert(0, "a😀b")
        let before = try Snapshot(doc)
        for delta: [DeltaOp] in [
            [.retain(2, attributes: nil), .delete(1)],
            [.retain(1, attributes: nil), .delete(1)],
            [.delete(2)],
            [.retain(2, attributes: ["bold": true])],
            [.insert(.text("x"), attributes: nil), .retain(2, attributes: nil), .insert(.text("y"), attributes: nil)],
        ] {
            let error = #expect(throws: AccordError.self) { try text.applyDelta(delta) }
            #expect(error?.code == .invalidArgument, "\(delta)")
        }
        #expect(try Snapshot(doc) == before)
        try text.applyDelta([.retain(1, attributes: nil), .delete(2)])
        #expect(text.string == "ab")
    }

    @Test func aSingleEditThatFailsPartWayChangesNothing() throws {
        let doc = Doc(clientID: 1)
        try seeded(doc)
        let before = try Snapshot(doc)
        var updates = 0
        doc.onUpdate { _, _ in updates += 1 }
        let error = #expect(throws: AccordError.self) {
            try doc.getText("t").applyDelta([.retain(2), .insert(.text("new"), attributes: nil), .delete(2),
                                             .insert(.values([.value(1)]), attributes: nil)])
        }
        #expect(error?.code == .invalidArgument)
        #expect(try Snapshot(doc) == before)
        #expect(updates == 0)
    }
}
