import AccordCRDT
import AccordStore
import Foundation
import Testing
@testable import AccordServer

/// Accord clients on `/v1/sync`: many documents over one connection.
@Suite(.timeLimit(.minutes(2)))
struct MultiplexedSyncTests {
    @Test func documentsShareOneConnectionAndARefusalTouchesOnlyItsDocument() async throws {
        let server = try TestServer()
        let bob = try await server.client("bob", document: "bobs")  // bob owns "bobs"
        try bob.edit("bobs") { try $0.getText("t").insert(0, "private") }
        try await eventually("stored") { server.server.metrics.snapshot.persistCount >= 1 }

        let ada = try await server.client("ada", document: nil)
        ada.open("a")
        ada.open("b")
        ada.open("bobs")
        try ada.edit("a") { try $0.getText("t").insert(0, "in a") }
        try ada.edit("b") { try $0.getText("t").insert(0, "in b") }
        try await eventually("refusal") { !ada.errors.isEmpty }
        #expect(ada.errors.map(\.code) == ["DOC_ACCESS_DENIED"])
        #expect(ada.errors.first?.document == "bobs")
        #expect(ada.text("bobs") == "")
        #expect(ada.closed == nil)

        // Both of Ada's documents sync through to a second connection.
        let other = try await server.client("ada", document: nil)
        other.open("a")
        other.open("b")
        try await eventually("both synced") { other.text("a") == "in a" && other.text("b") == "in b" }
        try await server.stop()
    }

    @Test func acksBroadcastAndAwarenessAreRoutedPerDocument() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: nil)
        ada.sendsAccordUpdates = true
        ada.open("a")
        try ada.edit("a") { try $0.getText("t").insert(0, "x") }
        try await eventually("ack") { ada.acks == [1] }

        let peer = try await server.client("ada", document: nil)
        peer.open("a")
        try await eventually("peer synced") { peer.text("a") == "x" }
        let broadcast = try AccordMessage.broadcast(documentID: "a", topic: "cursor", payload: #"{"at":3}"#, sender: nil)
        ada.send(try broadcast.frame(), document: "a")
        try await eventually("broadcast relayed") { !peer.broadcasts.isEmpty }
        #expect(peer.broadcasts == [.broadcast(documentID: "a", topic: "cursor", payload: #"{"at":3}"#, sender: "ada")])
        #expect(ada.broadcasts.isEmpty)

        let state = AwarenessUpdate([.init(clientID: 4242, clock: 1, state: .object(["user": .string("ada")]))]).encode()
        ada.send(.awareness(state), document: "a")
        try await eventually("awareness relayed") { !peer.awarenessUpdates.isEmpty }
        // The peer may not spoof Ada's awareness id.
        let spoof = AwarenessUpdate([.init(clientID: 4242, clock: 9, state: nil)]).encode()
        peer.send(.awareness(spoof), document: "a")
        try await eventually("spoof refused") { peer.errorCodes.contains("AWARENESS_CLIENT_TAKEN") }
        // When Ada disconnects, her awareness entry is removed for the peer.
        let before = peer.awarenessUpdates.count
        ada.close()
        try await eventually("removal relayed") { peer.awarenessUpdates.count > before }
        let removal = try AwarenessUpdate.decode(peer.awarenessUpdates.last!)
        #expect(removal.entries.map(\.clientID) == [4242])
        #expect(removal.entries.first?.state == nil)
        try await server.stop()
    }

    @Test func awarenessEchoesAreDroppedAndAReconnectingClientGetsItsIDBack() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: nil)
        ada.open("a")
        let peer = try await server.client("ada", document: nil)
        peer.open("a")
        try await eventually("both joined") { ada.text("a") == "" && peer.frames.count >= 1 && ada.frames.count >= 1 }
        let first = AwarenessUpdate([.init(clientID: 4242, clock: 1, state: .object(["user": .string("ada")]))]).encode()
        ada.send(.awareness(first), document: "a")
        try await eventually("relayed") { peer.awarenessUpdates.contains(first) }
        // The peer sends back what it received, as a relaying client does: no error, no relay.
        peer.send(.awareness(first), document: "a")
        // Ada leaves; the peer echoes the removal, which must not make it the owner.
        ada.close()
        let removal = AwarenessUpdate([.init(clientID: 4242, clock: 1, state: nil)]).encode()
        try await eventually("removal relayed") { peer.awarenessUpdates.contains(removal) }
        peer.send(.awareness(removal), document: "a")
        // Ada reconnects with the same client id and a newer clock: accepted and relayed.
        let again = try await server.client("ada", document: nil)
        again.open("a")
        let back = AwarenessUpdate([.init(clientID: 4242, clock: 2, state: .object(["user": .string("ada again")]))]).encode()
        again.send(.awareness(back), document: "a")
        try await eventually("ada is back for the peer") { peer.awarenessUpdates.contains(back) }
        #expect(peer.errorCodes.isEmpty && again.errorCodes.isEmpty, "\(peer.errorCodes) \(again.errorCodes)")
        #expect(ada.errorCodes.isEmpty)
        try await server.stop()
    }

    @Test func aLeftDocumentIsNoLongerSentWhileTheOthersAre() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: nil)
        ada.open("a")
        ada.open("b")
        let writer = try await server.client("ada", document: nil)
        writer.open("a")
        writer.open("b")
        try writer.edit("a") { try $0.getText("t").insert(0, "a1") }
        try await eventually("first edit") { ada.text("a") == "a1" }
        ada.send(try AccordMessage.leave(documentID: "a").frame(), document: "a")
        // A query on the same connection is answered after the leave was handled.
        let answered = ada.awarenessUpdates.count
        ada.send(.queryAwareness, document: "b")
        try await eventually("the server handled the leave") { ada.awarenessUpdates.count > answered }
        try writer.edit("a") { try $0.getText("t").insert(2, " a2") }
        try writer.edit("b") { try $0.getText("t").insert(0, "b1") }
        try await eventually("b still syncs") { ada.text("b") == "b1" }
        try await Task.sleep(for: .milliseconds(100))
        #expect(ada.text("a") == "a1")
        #expect(ada.errorCodes.isEmpty)
        try await server.stop()
    }

    @Test func idleRoomsAreUnloadedAndReloadedFromTheStore() async throws {
        let server = try TestServer { $0.roomIdleSeconds = 0 }
        let ada = try await server.client("ada", document: "doc")
        try ada.edit("doc") { try $0.getText("t").insert(0, "kept") }
        try await eventually("stored") { server.server.metrics.snapshot.persistCount >= 1 }
        ada.close()
        try await eventually("unloaded", timeout: .seconds(5)) { server.server.metrics.snapshot.rooms == 0 }
        let again = try await server.client("ada", document: "doc")
        try await eventually("reloaded") { again.text("doc") == "kept" }
        try await server.stop()
    }
}
