import Testing
import AccordCRDT
import AccordStore
import AccordServer
@testable import AccordSync

/// Undo, redo and history of an open document, and edits that fail, through the client.
@Suite(.timeLimit(.minutes(1))) struct ClientUndoTests {
    struct Boom: Error {}

    @Test func undoAndRedoAreLocalEditsThatReachTheServer() async throws {
        let server = try ClientTestServer()
        let client = server.client(store: memoryStore())
        await client.start()
        try await client.open("notes")
        #expect(await !client.canUndo("notes"))
        #expect(await !client.canRedo("notes"))
        try await client.edit("notes") { try $0.getText("t").insert(0, "hello") }
        try await eventually("the edit reached the server") { (try? server.storedText("notes")) == "hello" }
        #expect(await client.canUndo("notes"))
        #expect(try await client.undo("notes"))
        #expect(try await client.text("notes") == "")
        try await eventually("the undo reached the server") { (try? server.storedText("notes")) == "" }
        #expect(await client.canRedo("notes"))
        #expect(try await client.redo("notes"))
        try await eventually("the redo reached the server") { (try? server.storedText("notes")) == "hello" }
        #expect(try await !client.redo("notes"))
        await client.stop()
    }

    @Test func undoAndRedoInsideAnEditAreRefused() async throws {
        let client = AccordClient(serverURL: "ws://127.0.0.1:9", store: memoryStore()) { "token" }
        let id = try await client.create("draft", localOnly: true)
        try await client.edit(id) { try $0.getText("t").insert(0, "a") }
        let seen = try await client.edit(id) { doc -> [String] in
            let manager = try #require(doc.undoManager)
            var messages: [String] = []
            if manager.canUndo || manager.canRedo { messages.append("can undo or redo during an edit") }
            for attempt in [{ try manager.undo() }, { try manager.redo() }] as [() throws -> Bool] {
                do {
                    _ = try attempt()
                } catch let error as AccordError {
                    #expect(error.code == .refused)
                    messages.append(error.message)
                }
            }
            return messages
        }
        #expect(seen == ["Undo is not allowed during an update", "Redo is not allowed during an update"])
        #expect(await client.canUndo(id))
        await client.stop()
    }

    @Test func aFailedEditStoresAndChangesNothing() async throws {
        let store = memoryStore()
        let client = AccordClient(serverURL: "ws://127.0.0.1:9", store: store) { "token" }
        let id = try await client.create("draft", localOnly: true)
        try await client.edit(id) { try $0.getText("t").insert(0, "kept") }
        try store.flush()
        let logged = try store.unacknowledgedUpdates(id).count
        let before = try await client.withDocument(id) { $0.encodeStateAsUpdate() }
        await #expect(throws: Boom.self) {
            try await client.edit(id) { doc in
                try doc.getText("t").insert(2, "lost")
                try doc.getMap("m").set("k", 1)
                throw Boom()
            }
        }
        try store.flush()
        #expect(try await client.withDocument(id) { $0.encodeStateAsUpdate() } == before)
        #expect(try store.unacknowledgedUpdates(id).count == logged)
        #expect(await client.canUndo(id))
        #expect(try await client.undo(id))
        #expect(try await client.text(id) == "")
        await client.stop()
    }

    @Test func historyStartsEmptyAtOpenAndIsClearedByResync() async throws {
        let server = try ClientTestServer()
        let store = memoryStore()
        let client = server.client(store: store)
        await client.start()
        try await client.open("notes")
        try await client.edit("notes") { try $0.getText("t").insert(0, "one") }
        await client.close("notes")
        try await client.open("notes")
        #expect(await !client.canUndo("notes"), "steps of an earlier opening are not undoable")
        try await client.edit("notes") { try $0.getText("t").insert(0, "two ") }
        #expect(await client.canUndo("notes"))
        #expect(try await client.resync("notes", discardLocalChanges: false).isEmpty)
        #expect(await !client.canUndo("notes"))
        try await client.edit("notes") { try $0.getText("t").insert(0, "three ") }
        try await client.clearHistory("notes")
        #expect(await !client.canUndo("notes"))
        await client.stop()
    }
}
