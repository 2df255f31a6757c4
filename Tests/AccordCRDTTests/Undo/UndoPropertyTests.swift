import AccordCRDT
import AccordTesting
import Testing

/// Undo as a property: on random edit sequences, undoing every step gives back the
/// empty document, redoing every step gives back the edited one, and a replica fed the
/// updates of it all shows the same.
@Suite struct UndoPropertyTests {
    static let seeds = FuzzSeeds(standard: 48, soak: 2_000)

    @Test func undoingEveryStepRestoresTheEmptyDocument() throws {
        let schema = DocumentSchema.standard
        let empty = try schema.comparableJSON(of: Doc(clientID: 9))
        for seed in Self.seeds.seeds {
            var rng = SplitMix64(seed: seed)
            let doc = Doc(clientID: 1)
            let replica = Doc(clientID: 2)
            var updates: [[UInt8]] = []
            doc.onUpdate { update, _ in updates.append(update) }
            let clock = StepClock()
            let scope: [YValue] = [.text(try doc.getText("t")), .map(try doc.getMap("m")), .array(try doc.getArray("a"))]
            let undo = try UndoManager(scope: scope, options: .init(captureTimeout: 300, maxDepth: 1_000, now: clock.read))
            let editor = RandomEditor()
            let steps = Int.random(in: 1...40, using: &rng)
            for _ in 0..<steps {
                try doc.perform(editor.nextOperation(view: try schema.editView(of: doc), using: &rng))
                clock.now += UInt64.random(in: 0...600, using: &rng)
            }
            let edited = try schema.comparableJSON(of: doc)
            var undone = 0
            while try undo.undo() { undone += 1 }
            #expect(try schema.comparableJSON(of: doc) == empty, "seed \(seed): undo of \(undone) steps")
            while try undo.redo() {}
            #expect(try schema.comparableJSON(of: doc) == edited, "seed \(seed): redo")
            for update in updates { try replica.applyUpdate(update) }
            #expect(try schema.comparableJSON(of: replica) == edited, "seed \(seed): replica")
        }
    }

    /// Undo and redo on one replica while another edits concurrently, updates crossing
    /// at random: after a full exchange both replicas, and a third fed every update in
    /// shuffled order, are the same.
    @Test(arguments: 0..<16 as Range<UInt64>)
    func undoConvergesWithConcurrentRemoteEdits(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let schema = DocumentSchema.standard
        let a = Doc(clientID: 1), b = Doc(clientID: 2)
        var updates: [[UInt8]] = []
        for doc in [a, b] { doc.onUpdate { update, origin in if origin != "sync" { updates.append(update) } } }
        let scope: [YValue] = [.text(try a.getText("t")), .map(try a.getMap("m")), .array(try a.getArray("a"))]
        let undo = try UndoManager(scope: scope, options: .init(captureTimeout: 0))
        let editor = RandomEditor()
        func sync(_ from: Doc, _ to: Doc) throws {
            try to.applyUpdate(try from.encodeStateAsUpdate(from: to.encodeStateVector()), origin: "sync")
        }
        for _ in 0..<60 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<3: try a.perform(editor.nextOperation(view: try schema.editView(of: a), using: &rng))
            case 3..<5: try b.perform(editor.nextOperation(view: try schema.editView(of: b), using: &rng))
            case 5, 6: _ = try undo.undo()
            case 7: _ = try undo.redo()
            case 8: try sync(a, b)
            default: try sync(b, a)
            }
        }
        try sync(a, b)
        try sync(b, a)
        let expected = try schema.comparableJSON(of: a)
        #expect(try schema.comparableJSON(of: b) == expected, "seed \(seed)")
        let third = Doc(clientID: 3)
        updates.shuffle(using: &rng)
        for update in updates { try third.applyUpdate(update) }
        #expect(try schema.comparableJSON(of: third) == expected, "seed \(seed)")
    }
}
