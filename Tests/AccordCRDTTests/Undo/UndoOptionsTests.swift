import Testing
import AccordCRDT

/// Yjs's three remaining UndoManager options: `captureTransaction` (which tracked
/// transactions become steps at all), `deleteFilter` (which inserted items an undo
/// may delete) and `ignoreRemoteMapChanges` (undo a map value even when another
/// replica overwrote the key since).
@Suite struct UndoOptionsTests {
    @Test func captureTransactionLeavesRefusedTransactionsOutOfTheHistory() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        var options = UndoManager.Options(captureTimeout: 0, trackedOrigins: [nil, "bot"])
        options.captureTransaction = { transaction in transaction.origin != "bot" }
        let undo = UndoManager(text, options: options)
        try text.insert(0, "typed ")
        try doc.transact(origin: "bot") { try text.insert(6, "generated") }
        #expect(undo.undoStack.count == 1)
        #expect(try undo.undo())
        #expect(text.string == "generated", "only the captured edit is undone")
        #expect(try !undo.undo())
    }

    @Test func deleteFilterKeepsTheInsertionsItRefuses() throws {
        let doc = Doc(clientID: 1)
        let array = try doc.getArray("a")
        var options = UndoManager.Options(captureTimeout: 0)
        options.deleteFilter = { candidate in
            // Keep nested maps (an app's "blocks"); undo everything else.
            if case .map? = candidate.type { false } else { true }
        }
        let undo = try UndoManager(scope: [.array(array)], options: options)
        try doc.transact {
            try array.insert(0, [.string("plain")])
            _ = try array.insertMap(1)
        }
        #expect(array.count == 2)
        #expect(try undo.undo())
        #expect(array.count == 1)
        if case .map = try array.get(0) {} else { Issue.record("the nested map should have stayed") }
    }

    @Test func deleteFilterSeesTheText() throws {
        let doc = Doc(clientID: 1)
        let text = try doc.getText("t")
        var options = UndoManager.Options(captureTimeout: 0)
        options.deleteFilter = { candidate in candidate.text != "keep" }
        let undo = UndoManager(text, options: options)
        try doc.transact {
            try text.insert(0, "drop")
            try text.insert(0, "keep")
        }
        #expect(try undo.undo())
        #expect(text.string == "keep")
        #expect(try !undo.undo(), "a step whose only deletion was filtered changes nothing")
    }

    /// Local sets k=a, then k=x; a remote replica overwrites k=b. Undoing k=x would bring
    /// a back, but b came later from someone else: by default the value stays b (Yjs),
    /// with `ignoreRemoteMapChanges` a is restored over it.
    @Test(arguments: [false, true])
    func ignoreRemoteMapChanges(_ ignore: Bool) throws {
        let doc = Doc(clientID: 1)
        let remote = Doc(clientID: 2)
        let map = try doc.getMap("m")
        var options = UndoManager.Options(captureTimeout: 0)
        options.ignoreRemoteMapChanges = ignore
        let undo = try UndoManager(scope: [.map(map)], options: options)
        try map.set("k", .string("a"))
        try map.set("k", .string("x"))
        try remote.applyUpdate(doc.encodeStateAsUpdate())
        try remote.getMap("m").set("k", .string("b"))
        try doc.applyUpdate(remote.encodeStateAsUpdate(from: doc.encodeStateVector()))
        #expect(map["k"]?.json == .string("b"))
        _ = try undo.undo()
        #expect(map["k"]?.json == .string(ignore ? "a" : "b"))
        // Either way the replicas converge once they exchange.
        try remote.applyUpdate(doc.encodeStateAsUpdate(from: remote.encodeStateVector()))
        #expect(try remote.getMap("m")["k"]?.json == map["k"]?.json)
    }
}
