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
}
