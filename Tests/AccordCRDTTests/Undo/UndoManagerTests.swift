import Testing
import AccordCRDT

/// A clock for capture timeouts that moves only when told.
final class StepClock {
    var now: UInt64 = 1_000
    var read: () -> UInt64 { { self.now } }
}

/// UndoManager on small, named cases (UndoDifferentialTests compares with pycrdt).
@Suite struct UndoManagerTests {
    private func stepwise(_ clock: StepClock = StepClock(), maxDepth: Int = 50) -> UndoManager.Options {
        UndoManager.Options(captureTimeout: 0, maxDepth: maxDepth, now: clock.read)
    }

    @Test func undoRemovesInsertedTextAndRedoBringsItBack() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        let undo = UndoManager(text, options: stepwise())
        #expect(!undo.canUndo && !undo.canRedo)
        try text.insert(0, "Hello")
        try text.insert(5, " world")
        #expect(undo.canUndo)
        #expect(try undo.undo())
        #expect(text.string == "Hello")
        #expect(try undo.undo())
        #expect(text.string == "")
        #expect(try !undo.undo(), "nothing left to undo")
        #expect(undo.canRedo)
        #expect(try undo.redo())
        #expect(try undo.redo())
        #expect(text.string == "Hello world")
        #expect(try !undo.redo())
    }

    @Test func undoRestoresDeletedFormattedText() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        try text.insert(0, "bold plain")
        try text.format(0, 4, ["bold": true])
        let before = text.delta.map(\.json)
        let undo = UndoManager(text, options: stepwise())
        try text.delete(2, 5)
        #expect(text.string == "boain")
        #expect(try undo.undo())
        #expect(text.string == "bold plain")
        #expect(text.delta.map(\.json) == before)
        #expect(try undo.redo())
        #expect(text.string == "boain")
    }

    @Test func undoRevertsFormatting() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        try text.insert(0, "abc")
        let undo = UndoManager(text, options: stepwise())
        try text.format(0, 2, ["italic": true])
        #expect(try undo.undo())
        #expect(text.delta.map(\.json) == [.object(["insert": "abc"])])
        #expect(try undo.redo())
        #expect(text.delta.map(\.json) == [.object(["insert": "ab", "attributes": ["italic": true]]), .object(["insert": "c"])])
    }

    @Test func undoRestoresMapEntriesAndNestedTypes() throws {
        let doc = Doc(clientID: 1)
        let map = try doc.getMap("m")
        let undo = try UndoManager(scope: [.map(map)], options: stepwise())
        try map.set("a", 1)
        let nested = try map.setMap("inner")
        try nested.set("x", "y")
        let list = try nested.setArray("list")
        try list.insert(0, [1, 2, 3])
        let full = map.json
        try map.set("a", 2)
        try map.delete("inner")
        #expect(map.json == ["a": 2])
        #expect(try undo.undo())
        #expect(map.json == ["a": 2, "inner": ["x": "y", "list": [1, 2, 3]]])
        #expect(try undo.undo())
        #expect(map.json == full)
        #expect(try undo.redo())
        #expect(try undo.redo())
        #expect(map.json == ["a": 2])
    }

    @Test func undoRestoresArrayElements() throws {
        let doc = Doc(clientID: 1)
        let array = try doc.getArray("a")
        try array.insert(0, [1, 2, 3, 4])
        let undo = try UndoManager(scope: [.array(array)], options: stepwise())
        try array.delete(1, count: 2)
        try array.insert(1, ["x"])
        #expect(try undo.undo())
        #expect(try undo.undo())
        #expect(array.json == [1, 2, 3, 4])
    }

    @Test func captureTimeoutJoinsEditsAndStopCapturingSplitsThem() throws {
        let clock = StepClock()
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        let undo = UndoManager(text, options: .init(captureTimeout: 500, now: clock.read))
        var added = 0, updated = 0
        undo.onStackItemAdded { _ in added += 1 }
        undo.onStackItemUpdated { _ in updated += 1 }
        try text.insert(0, "a")
        clock.now += 100
        try text.insert(1, "b")
        clock.now += 499
        try text.insert(2, "c")
        clock.now += 500
        try text.insert(3, "d")
        undo.stopCapturing()
        try text.insert(4, "e")
        #expect(added == 3 && updated == 2)
        #expect(undo.undoStack.count == 3)
        #expect(try undo.undo())
        #expect(text.string == "abcd")
        #expect(try undo.undo())
        #expect(text.string == "abc")
        #expect(try undo.undo())
        #expect(text.string == "")
    }

    @Test func newLocalEditClearsRedoStack() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        let undo = UndoManager(text, options: stepwise())
        try text.insert(0, "a")
        try undo.undo()
        #expect(undo.canRedo)
        try text.insert(0, "b")
        #expect(!undo.canRedo)
        #expect(try !undo.redo())
    }

    @Test func remoteChangesAreNeverUndone() throws {
        let doc = Doc(clientID: 1)
        let remote = Doc(clientID: 2)
        let text = try doc.getText("t")
        let undo = UndoManager(text, options: stepwise())
        try text.insert(0, "mine ")
        try remote.applyUpdate(doc.encodeStateAsUpdate())
        try remote.getText("t").insert(5, "theirs")
        try doc.applyUpdate(remote.encodeStateAsUpdate(from: doc.encodeStateVector()))
        #expect(text.string == "mine theirs")
        #expect(undo.undoStack.count == 1)
        #expect(try undo.undo())
        #expect(text.string == "theirs")
        #expect(try undo.redo())
        #expect(text.string == "mine theirs")
    }

    @Test func onlyTrackedOriginsAreRecorded() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        let undo = UndoManager(text, options: .init(captureTimeout: 0, trackedOrigins: ["editor"]))
        try text.insert(0, "untracked ")
        try doc.transact(origin: "editor") { try text.insert(10, "tracked") }
        #expect(undo.undoStack.count == 1)
        try undo.undo()
        #expect(text.string == "untracked ")
    }

    @Test func typesOutsideTheScopeAreNotTracked() throws {
        let doc = Doc(clientID: 1)
        let tracked = try doc.getText("a")
        let other = try doc.getText("b")
        let undo = UndoManager(tracked, options: stepwise())
        try other.insert(0, "x")
        #expect(!undo.canUndo)
        try doc.transact {
            try tracked.insert(0, "1")
            try other.insert(0, "2")
        }
        try undo.undo()
        #expect(tracked.string == "" && other.string == "2x", "only the scope is reverted")
    }

    @Test func maxDepthDropsTheOldestStepAndFallsBackBelowOne() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        let undo = UndoManager(text, options: stepwise(maxDepth: 3))
        for c in "abcde" { try text.insert(text.length, String(c)) }
        #expect(undo.undoStack.count == 3)
        while try undo.undo() {}
        #expect(text.string == "ab")
        #expect(UndoManager(text, options: stepwise(maxDepth: 0)).options.maxDepth == 50)
        #expect(UndoManager(text, options: stepwise(maxDepth: -4)).options.maxDepth == 50)
    }

    @Test func metadataTravelsFromAddedToPopped() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        let undo = UndoManager(text, options: stepwise())
        undo.onStackItemAdded { event in event.item.meta["cursor"] = .int(Int64(text.length)) }
        var popped: [(UndoStackKind, AnyValue?)] = []
        undo.onStackItemPopped { popped.append(($0.stack, $0.item.meta["cursor"])) }
        try text.insert(0, "abc")
        try undo.undo()
        try undo.redo()
        #expect(popped.map(\.0) == [.undo, .redo])
        #expect(popped.map(\.1) == [.int(3), .int(0)])
    }

    @Test func undoInsideATransactionIsRefused() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        let undo = UndoManager(text, options: stepwise())
        try text.insert(0, "a")
        doc.transact {
            #expect(!undo.canUndo)
            let error = #expect(throws: AccordError.self) { try undo.undo() }
            #expect(error?.code == .refused)
            #expect(error?.message == "Undo is not allowed during an update")
            let redoError = #expect(throws: AccordError.self) { try undo.redo() }
            #expect(redoError?.message == "Redo is not allowed during an update")
        }
        #expect(undo.canUndo)
    }

    @Test func clearEmptiesBothStacks() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        let undo = UndoManager(text, options: stepwise())
        try text.insert(0, "ab")
        try text.insert(0, "cd")
        try undo.undo()
        undo.clear()
        #expect(!undo.canUndo && !undo.canRedo)
        #expect(try !undo.undo())
    }

    @Test func undoneStepSyncsToOtherReplicas() throws {
        let doc = Doc(clientID: 1)
        let replica = Doc(clientID: 2)
        var updates: [[UInt8]] = []
        doc.onUpdate { update, _ in updates.append(update) }
        let text = try doc.getText("t")
        let undo = UndoManager(text, options: stepwise())
        try text.insert(0, "hello")
        try text.format(0, 2, ["bold": true])
        try text.delete(1, 3)
        try undo.undo()
        try undo.undo()
        try undo.redo()
        for update in updates { try replica.applyUpdate(update) }
        #expect(try replica.getText("t").delta.map(\.json) == text.delta.map(\.json))
        #expect(replica.encodeStateVector() == doc.encodeStateVector())
    }

    @Test func deletedContentInScopeIsKeptFromGarbageCollection() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        let undo = UndoManager(text, options: stepwise())
        try text.insert(0, "abcdef")
        try text.delete(0, 3)
        // Kept while the step may need it: the update still carries "abc"...
        #expect(String(decoding: doc.encodeStateAsUpdate(), as: UTF8.self).contains("abc"))
        // ...where a document without a manager collected it.
        let plain = Doc(clientID: 1)
        try plain.getText("t").insert(0, "abcdef")
        try plain.getText("t").delete(0, 3)
        #expect(!String(decoding: plain.encodeStateAsUpdate(), as: UTF8.self).contains("abc"))
        #expect(undo.undoStack.count == 2)
    }

    @Test func documentScopeTracksRootsCreatedLater() throws {
        let doc = Doc(clientID: 1)
        let undo = UndoManager(document: doc, options: stepwise())
        try doc.getText("late").insert(0, "x")
        try doc.getMap("later").set("k", 1)
        #expect(undo.undoStack.count == 2)
        while try undo.undo() {}
        #expect(try doc.getText("late").string == "" && doc.getMap("later").count == 0)
    }
}
