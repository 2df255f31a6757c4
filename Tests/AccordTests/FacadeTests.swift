import Foundation
import Testing
import Accord
import AccordServer
import AccordTesting

/// The `Accord` module as an app uses it: two clients over SQLite files, a document
/// created on one and loaded from the network on the other, handles and their events.
@Suite(.timeLimit(.minutes(1))) struct FacadeTests {
    let directory: TemporaryDirectory
    let tokens: TokenAuthority
    let server: AccordServer

    init() throws {
        directory = try TemporaryDirectory(prefix: "accord-facade")
        tokens = try TokenAuthority(secret: Array("accord-facade-test-secret-0123456789".utf8))
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        server = try AccordServer(
            configuration: configuration, documents: try DocumentStore(path: directory.file("server.sqlite")), tokens: tokens)
    }

    private func client(_ name: String) throws -> AccordClient {
        let token = tokens.mint(subject: "alice", ttl: 3600)
        return try AccordClient(serverURL: "ws://127.0.0.1:\(server.port)", storePath: directory.file("\(name).sqlite")) { _ in
            token
        }
    }

    @Test func aDocumentCreatedOnOneDeviceOpensFromTheNetworkOnAnother() async throws {
        let phone = try client("phone")
        let laptop = try client("laptop")
        await phone.start()
        await laptop.start()

        let notes = try await phone.documents.create(title: "Notes", tags: ["home"])
        let changes = notes.stream(for: DocumentChangedEvent.self)
        try await notes.edit { doc in try doc.getText("body").insert(0, "Hello") }
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.origin == .local)
        try await waitUntil { await notes.isSynced }

        let copy = try await laptop.documents.open(notes.id, waitForLoad: .network)
        #expect(try await copy.edit { doc in try doc.getText("body").string } == "Hello")
        #expect(try laptop.documents.list().map(\.id) == [notes.id])

        // Presence and broadcasts through the handles.
        let heard = await copy.broadcasts(topic: "cursor")
        try await notes.presence.set(["name": "phone"])
        #expect(try await notes.presence.mine == .object(["name": "phone"]))
        try await waitUntil { (try? await copy.presence.others.values.contains(.object(["name": "phone"]))) == true }
        #expect(try await notes.broadcast(topic: "cursor", payload: "{\"at\":3}"))
        var heardIterator = heard.makeAsyncIterator()
        #expect(await heardIterator.next()?.payload == "{\"at\":3}")
        #expect(try phone.documents.list().first?.title == "Notes")

        try await copy.setSyncMode(.manual)
        #expect(await copy.syncMode == .manual)
        #expect(await laptop.documents.close(notes.id, evictLocal: true).evicted)
        do {
            _ = try await copy.edit { doc in try doc.getText("body").string }
            Issue.record("a closed document's handle still edits")
        } catch let error as AccordError {
            #expect(error.code == .documentNotOpen)
        }
        await phone.stop()
        await laptop.stop()
        try await server.stop()
    }

    struct Boom: Error {}

    @Test func aDocumentHandleUndoesRedoesAndRollsBackFailedEdits() async throws {
        let phone = try client("phone")
        await phone.start()
        let notes = try await phone.documents.create(title: "Notes")
        #expect(await !notes.canUndo)
        try await notes.edit { doc in try doc.getText("body").insert(0, "Hello") }
        await #expect(throws: Boom.self) {
            try await notes.edit { doc in
                try doc.getText("body").insert(5, " lost")
                throw Boom()
            }
        }
        #expect(try await notes.edit { try $0.getText("body").string } == "Hello")
        #expect(await notes.canUndo)
        #expect(try await notes.undo())
        #expect(try await notes.edit { try $0.getText("body").string } == "")
        #expect(await notes.canRedo)
        #expect(try await notes.redo())
        #expect(try await notes.edit { try $0.getText("body").string } == "Hello")
        try await notes.clearHistory()
        #expect(await !notes.canUndo)
        #expect(await !notes.canRedo)
        await phone.stop()
        try await server.stop()
    }

    private func waitUntil(_ condition: () async -> Bool) async throws {
        for _ in 0..<500 {
            if await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("timed out")
    }
}
