import Testing
import AccordCRDT
import AccordStore
import AccordServer
@testable import AccordSync

/// Clients wired to a real server `Room` in memory (see ``RoomLink``).
@Suite struct RoomSyncTests {
    private func serverText(_ link: RoomLink) throws -> String { try link.room.doc.getText("t").string }

    @Test func offlineEditsAreResentAckedAcknowledgedInTheStoreAndConverge() throws {
        let link = RoomLink()
        let store = DocumentStore(storage: SerialStorage.inMemory())
        // A first client instance edits offline, then is "killed" before it ever connects.
        let first = try link.makeClient(connection: 1, clientID: 10, store: store)
        try first.stored.doc.getText("t").insert(0, "world")
        try first.stored.doc.getText("t").insert(0, "hello ")
        try first.stored.close()
        let pending = try store.unacknowledgedUpdates(SyncFixture.id).map(\.sequence)
        #expect(pending.count == 2)

        // A new instance over the same store resends them on connect.
        let writer = try link.makeClient(connection: 1, clientID: 10, store: store)
        try link.connect(writer, canWrite: true)
        #expect(try serverText(link) == "hello world")
        #expect(writer.acknowledgedCalls.last == pending.last)
        #expect(try store.unacknowledgedUpdates(SyncFixture.id).isEmpty)
        #expect(try !store.hasUnacknowledgedWrites(SyncFixture.id))
        #expect(writer.events == [.synced])
        #expect(writer.machine.isSynced)

        // A second client catches up through the handshake, then both edit live.
        let other = try link.makeClient(connection: 2, clientID: 20)
        try link.connect(other, canWrite: true)
        #expect(other.text == "hello world")
        #expect(other.events == [.synced])
        try link.edit(other, "> ")
        try link.edit(writer, "! ")
        #expect(try serverText(link) == writer.text)
        #expect(other.text == writer.text)
        #expect(writer.text.count == "! > hello world".count)
        #expect(try store.unacknowledgedUpdates(SyncFixture.id).isEmpty)
        #expect(try other.store.unacknowledgedUpdates(SyncFixture.id).isEmpty)
        // Each catch-up after a live edit said `synced` again.
        #expect(writer.events == [.synced, .synced])

        // A reconnect with nothing pending sends no update again and the room is unchanged.
        let before = link.room.doc.encodeStateAsUpdate()
        link.disconnect(writer)
        try link.connect(writer, canWrite: true)
        #expect(link.room.doc.encodeStateAsUpdate() == before)
        #expect(writer.events.last == .synced)
    }

    @Test func aReadersWritesAreRejectedAndTheDocumentParks() throws {
        let link = RoomLink()
        let writer = try link.makeClient(connection: 1, clientID: 10)
        try link.connect(writer, canWrite: true)
        try link.edit(writer, "shared")

        let reader = try link.makeClient(connection: 2, clientID: 20)
        try reader.stored.doc.getText("t").insert(0, "mine ")
        let before = link.room.doc.encodeStateAsUpdate()
        try link.connect(reader, canWrite: false)

        // The server refused the update and the step 2 alike; one event, parked.
        let rejections = reader.events.filter { if case .writeRejected = $0 { true } else { false } }
        #expect(rejections.count == 1)
        #expect(reader.machine.parked?.code == WriteRefusal.permissionDenied)
        #expect(link.room.doc.encodeStateAsUpdate() == before)
        #expect(try serverText(link) == "shared")
        // The refused change stays in the store, unacknowledged, for `resync` to decide.
        #expect(try reader.store.hasUnacknowledgedWrites(SyncFixture.id))
        #expect(reader.acknowledgedCalls.isEmpty)
        // The reader still receives the others' changes.
        #expect(reader.text.contains("shared"))
        try link.edit(writer, "more ")
        #expect(reader.text.contains("more shared"))

        // Parked: more edits are kept, not sent, and not refused again.
        try link.edit(reader, "again ")
        #expect(link.room.doc.encodeStateAsUpdate() != before)  // the writer's edit only
        #expect(try serverText(link) == "more shared")
        #expect(reader.events.filter { if case .writeRejected = $0 { true } else { false } }.count == 1)
        // Nor after a reconnect.
        link.disconnect(reader)
        try link.connect(reader, canWrite: false)
        #expect(try serverText(link) == "more shared")
        #expect(reader.events.filter { if case .writeRejected = $0 { true } else { false } }.count == 1)
    }

    @Test func anOversizedUpdateIsRefusedAndParksOnlyThatClient() throws {
        let link = RoomLink(maxDocumentBytes: 64)
        let writer = try link.makeClient(connection: 1, clientID: 10)
        try link.connect(writer, canWrite: true)
        try link.edit(writer, String(repeating: "x", count: 200))
        guard case .writeRejected(let error)? = writer.events.last else { Issue.record("\(writer.events)"); return }
        #expect(error.code == WriteRefusal.documentTooLarge)
        #expect(try serverText(link) == "")
        #expect(try writer.store.hasUnacknowledgedWrites(SyncFixture.id))
    }

    @Test func anUpdateOverTheHelloFrameLimitIsNeverSent() throws {
        let link = RoomLink(limits: Session.Limits(maxFrameBytes: 200))
        let writer = try link.makeClient(connection: 1, clientID: 10)
        try link.connect(writer, canWrite: true)
        try link.edit(writer, "short ")
        try link.edit(writer, String(repeating: "y", count: 500))
        guard case .writeRejected(let error)? = writer.events.last else { Issue.record("\(writer.events)"); return }
        #expect(error.code == WriteRefusal.messageTooLarge)
        #expect(try serverText(link) == "short ")
        #expect(try writer.store.hasUnacknowledgedWrites(SyncFixture.id))
    }
}
