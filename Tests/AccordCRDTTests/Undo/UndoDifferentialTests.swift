import AccordCRDT
import AccordTesting
import Testing

/// Accord's UndoManager against pycrdt's (Yrs): the same edits, undos and redos on an
/// Accord replica and a pycrdt replica (same client ID), compared after every step, with
/// a third replica's concurrent edits delivered to both as remote updates.
///
/// Needs `ACCORD_PYTHON` (the venv with pycrdt; `make test` sets it).
@Suite struct UndoDifferentialTests {
    static let schema = DocumentSchema.standard
    static let text = EditTarget(root: "t", rootKind: .text)
    static let map = EditTarget(root: "m", rootKind: .map)
    static let array = EditTarget(root: "a", rootKind: .array)

    @Test func formattedText() throws {
        try UndoScenario.run(timeout: 0) { s in
            try s.edit(.textInsert(Self.text, index: 0, text: "hello brave world", attributes: nil))
            try s.edit(.textFormat(Self.text, index: 0, length: 5, attributes: ["bold": true]))
            try s.edit(.textFormat(Self.text, index: 3, length: 6, attributes: ["italic": true, "color": "red"]))
            try s.edit(.textDelete(Self.text, index: 2, length: 9))
            try s.edit(.textInsert(Self.text, index: 2, text: "😀", attributes: ["link": "x"]))
            try s.edit(.textFormat(Self.text, index: 0, length: 4, attributes: ["bold": .null]))
            try s.undoAll()
            try s.redoAll()
            try s.undoAll()
        }
    }

    @Test func nestedMaps() throws {
        try UndoScenario.run(timeout: 0) { s in
            try s.edit(.mapSet(Self.map, key: "v0", value: .plain("a")))
            try s.edit(.mapSet(Self.map, key: "m0", value: .map(["v1": 1, "v2": "two"])))
            let inner = EditTarget(root: "m", rootKind: .map, path: [.key("m0")])
            try s.edit(.mapSet(inner, key: "a0", value: .array([1, 2])))
            try s.edit(.mapSet(inner, key: "v1", value: .plain(10)))
            try s.edit(.mapDelete(inner, key: "v2"))
            try s.edit(.mapSet(Self.map, key: "v0", value: .plain("b")))
            try s.edit(.mapDelete(Self.map, key: "m0"))
            try s.undoAll()
            try s.redoAll()
            try s.undo()
            try s.undo()
            try s.edit(.mapSet(Self.map, key: "v2", value: .plain(true)))
            try s.redo()
            try s.undoAll()
        }
    }

    @Test func arrays() throws {
        try UndoScenario.run(timeout: 0) { s in
            try s.edit(.arrayInsert(Self.array, index: 0, values: [.plain(1), .plain(2), .plain(3)]))
            try s.edit(.arrayInsert(Self.array, index: 1, values: [.map(["k": "v"]), .array([4])]))
            try s.edit(.arrayDelete(Self.array, index: 0, length: 2))
            try s.edit(.arrayInsert(Self.array, index: 3, values: [.text("nested")]))
            try s.undoAll()
            try s.redoAll()
        }
    }

    @Test func concurrentRemoteEditsBetweenUndoAndRedo() throws {
        try UndoScenario.run(timeout: 0) { s in
            try s.edit(.textInsert(Self.text, index: 0, text: "abc def", attributes: nil))
            try s.remote(.textInsert(Self.text, index: 3, text: "XY", attributes: nil))
            try s.edit(.textDelete(Self.text, index: 0, length: 2))
            try s.edit(.mapSet(Self.map, key: "v0", value: .plain(1)))
            try s.undo()
            try s.remote(.mapSet(Self.map, key: "v1", value: .plain("remote")))
            try s.undo()
            try s.remote(.textInsert(Self.text, index: 1, text: "r", attributes: ["bold": true]))
            try s.redo()
            try s.remote(.textDelete(Self.text, index: 0, length: 3))
            try s.redo()
            try s.undoAll()
            try s.redoAll()
        }
    }

    @Test func remoteOverwriteBlocksMapRedo() throws {
        try UndoScenario.run(timeout: 0) { s in
            try s.edit(.mapSet(Self.map, key: "v0", value: .plain("mine")))
            try s.edit(.mapSet(Self.map, key: "v0", value: .plain("mine again")))
            try s.remote(.mapSet(Self.map, key: "v0", value: .plain("theirs")))
            try s.undoAll()
            try s.redoAll()
        }
    }

    @Test func captureTimeoutMerging() throws {
        try UndoScenario.run(timeout: 500) { s in
            for (i, word) in ["a", "b", "c", "d", "e", "f"].enumerated() {
                try s.advanceClock(by: [0, 100, 499, 500, 10, 2_000][i])
                try s.edit(.textInsert(Self.text, index: i, text: word, attributes: nil))
            }
            try s.advanceClock(by: 100)
            try s.edit(.mapSet(Self.map, key: "k", value: .plain(1)))
            try s.expectDepths()
            try s.undoAll()
            try s.redoAll()
        }
    }

    /// pycrdt has no depth limit: both agree for the 50 newest steps, then Accord has
    /// nothing left where pycrdt still has the older steps.
    @Test func depthOverflowDropsTheOldestSteps() throws {
        try UndoScenario.run(timeout: 0) { s in
            s.comparesDepths = false
            for i in 0..<60 {
                try s.edit(.textInsert(Self.text, index: i, text: String(UnicodeScalar(UInt8(65 + i % 26))), attributes: nil))
            }
            for _ in 0..<50 { try s.undo() }
            #expect(!s.manager.canUndo)
            #expect(try !s.manager.undo())
            #expect(try s.json() == ["string": "ABCDEFGHIJ", "delta": [["ABCDEFGHIJ", .null]]])
        }
    }

    /// Random edits on all three roots, then undo everything and redo everything, with
    /// the two engines compared after every step.
    @Test(arguments: 0..<8 as Range<UInt64>)
    func randomEditsUndoneAndRedone(seed: UInt64) throws {
        try UndoScenario.run(timeout: 0) { s in
            var rng = SplitMix64(seed: seed)
            let editor = RandomEditor(allowsBytes: false)
            for _ in 0..<25 {
                try s.edit(editor.nextOperation(view: try Self.schema.editView(of: s.doc), using: &rng))
            }
            try s.undoAll()
            try s.redoAll()
        }
    }

    /// Random edits, undos and redos interleaved. (Remote edits stay in the scenarios
    /// above: after an undo, Yrs may give redone content other clocks than Yjs and
    /// Accord do, so one remote update would name different content on each side.
    /// UndoYjsTranscriptTests interleaves them, against Yjs itself.)
    @Test(arguments: 0..<12 as Range<UInt64>)
    func randomInterleavingOfEditsUndosAndRedos(seed: UInt64) throws {
        try UndoScenario.run(timeout: 0) { s in
            var rng = SplitMix64(seed: seed &+ 500)
            let editor = RandomEditor(allowsBytes: false)
            for _ in 0..<30 {
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<5: try s.edit(editor.nextOperation(view: try Self.schema.editView(of: s.doc), using: &rng))
                case 5..<8: try s.undo()
                default: try s.redo()
                }
            }
            try s.undoAll()
            try s.redoAll()
        }
    }
}

/// One differential scenario: Accord replica `doc` and pycrdt replica "A" (both client 1,
/// both with an undo manager on the same clock), and a remote Accord replica (client 2).
final class UndoScenario {
    let peer: PycrdtPeer
    let doc = Doc(clientID: 1)
    let remoteDoc = Doc(clientID: 2)
    let manager: UndoManager
    let clock: StepClock
    var step = 0
    /// Off where Accord's depth limit makes the stacks differ on purpose.
    var comparesDepths = true

    /// What the peer runs, for messages.
    let reference: String

    static func run(timeout: UInt64, _ body: (UndoScenario) throws -> Void) throws {
        let peer = try PycrdtPeer()
        defer { peer.close() }
        let scenario = try UndoScenario(peer: peer, timeout: timeout)
        try body(scenario)
    }

    init(peer: PycrdtPeer, timeout: UInt64, reference: String = "pycrdt") throws {
        self.peer = peer
        self.reference = reference
        let clock = StepClock()
        self.clock = clock
        try peer.newDoc("A", clientID: 1)
        // Every root exists on both sides before the managers start.
        let schema = UndoDifferentialTests.schema
        _ = try schema.comparableJSON(of: doc)
        _ = try peer.json("A", schema: schema)
        let scope = [UndoDifferentialTests.text, UndoDifferentialTests.map, UndoDifferentialTests.array]
        var types: [YValue] = []
        for target in scope { types.append(try doc.resolve(target)) }
        manager = try UndoManager(scope: types,
                                  options: .init(captureTimeout: timeout, now: clock.read))
        try peer.newUndoManager(on: "A", scopes: scope, captureTimeout: timeout)
    }

    func edit(_ op: EditOperation) throws {
        try doc.perform(op)
        try peer.perform(op, on: "A")
        try compare("edit \(op)")
    }

    /// `op` on the remote replica after it caught up with `doc`, delivered to both.
    /// Gives the remote replica everything `doc` has.
    func catchUpRemote() throws {
        try remoteDoc.applyUpdate(try doc.encodeStateAsUpdate(from: remoteDoc.encodeStateVector()))
    }

    func remote(_ op: EditOperation) throws {
        try catchUpRemote()
        let before = remoteDoc.encodeStateVector()
        try remoteDoc.perform(op)
        let update = try remoteDoc.encodeStateAsUpdate(from: before)
        try doc.applyUpdate(update, origin: "remote")
        try peer.applyUpdate(update, to: "A", origin: "remote")
        try compare("remote \(op)")
    }

    @discardableResult
    func undo() throws -> Bool {
        let ours = try manager.undo()
        let theirs = try peer.undo(on: "A")
        #expect(ours == theirs, "undo at step \(step) changed: Accord \(ours), \(reference) \(theirs)")
        try compare("undo")
        return ours
    }

    @discardableResult
    func redo() throws -> Bool {
        let ours = try manager.redo()
        let theirs = try peer.redo(on: "A")
        #expect(ours == theirs, "redo at step \(step) changed: Accord \(ours), \(reference) \(theirs)")
        try compare("redo")
        return ours
    }

    func undoAll() throws { while try undo() {} }
    func redoAll() throws { while try redo() {} }

    func advanceClock(by ms: UInt64) throws {
        clock.now += ms
        try peer.setUndoClock(on: "A", to: clock.now)
    }

    func expectDepths() throws {
        let theirs = try peer.undoDepths(on: "A")
        #expect(manager.undoStack.count == theirs.undo && manager.redoStack.count == theirs.redo)
    }

    /// The text root's comparable JSON.
    func json() throws -> AnyValue {
        try UndoDifferentialTests.schema.comparableJSON(of: doc).objectValue?["t"] ?? .null
    }

    private func compare(_ what: String) throws {
        step += 1
        let schema = UndoDifferentialTests.schema
        let ours = try schema.comparableJSON(of: doc)
        let theirs = schema.normalizedPeerJSON(try peer.json("A", schema: schema))
        #expect(ours == theirs, "step \(step) (\(what)): Accord \(ours.jsonText) vs \(reference) \(theirs.jsonText)")
        if comparesDepths { try expectDepths() }
    }
}
