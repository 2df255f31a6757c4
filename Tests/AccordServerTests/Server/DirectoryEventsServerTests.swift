import Foundation
import Testing
import AccordCRDT
import AccordServer

/// Directory events on the wire (`docs/protocol.md`, subtypes 20–22): who hears of a
/// grant, a revoke, a link-access change, a title change, a transfer and a delete,
/// on which connections, and what a device's `create` carries.
@Suite(.timeLimit(.minutes(1))) struct DirectoryEventsServerTests {
    /// The directory messages a client received, in order.
    private func directory(_ client: SyncTestClient) -> [DirectoryMessage] {
        client.accordMessages.compactMap { if case .directory(let message) = $0 { message } else { nil } }
    }

    private func permissions(_ client: SyncTestClient) -> [String] {
        directory(client).compactMap {
            if case .permissionChanged(_, let now, let before, let cause) = $0 { "\(before ?? "-")>\(now ?? "-") \(cause)" } else { nil }
        }
    }

    private func entries(_ client: SyncTestClient) -> [(action: String, entry: [String: Any]?)] {
        directory(client).compactMap {
            guard case .entryChanged(_, let action, let entry) = $0 else { return nil }
            let object = entry.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            return (action, object)
        }
    }

    @Test func everyUserConcernedHearsOnEverySyncConnectionAndNobodyElse() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: nil)
        let adaPhone = try await server.client("ada", document: nil)
        let bob = try await server.client("bob", document: nil)
        let carl = try await server.client("carl", document: nil)
        try await eventually("hellos") { [ada, adaPhone, bob, carl].allSatisfy { !$0.accordMessages.isEmpty } }

        let created = try await server.request(
            "POST", "/v1/documents", user: "ada", json: ["id": "doc", "title": "Notes", "tags": ["a"]])
        #expect(created.status == 201)
        for device in [ada, adaPhone] {
            try await eventually("ada's devices hear of the creation") { entries(device).count == 1 }
            #expect(permissions(device) == ["->owner create"])
            #expect(entries(device).first?.entry?["title"] as? String == "Notes")
            #expect(entries(device).first?.entry?["permission"] as? String == "owner")
        }
        // Events are connection-wide frames: their envelope names no document.
        #expect(ada.frames.filter { $0.frame.type == AccordMessage.frameType }.allSatisfy { $0.document == nil })

        // Bob has nothing open, and learns of the share (the document is new to him).
        _ = try await server.request("PUT", "/v1/documents/doc/permissions", user: "ada", json: ["user": "bob", "role": "reader"])
        try await eventually("bob hears of the grant") { entries(bob).count == 1 }
        // From now on bob also has a stock y-websocket client and a single-document
        // Accord client in the room: neither hears of what follows.
        let stock = try await server.client("bob", document: "doc", accordMessages: false)
        let single = try await server.client("bob", document: "doc", accordMessages: true)
        try await eventually("both joined") { !stock.frames.isEmpty && !single.frames.isEmpty }
        #expect(permissions(bob) == ["->reader grant"])
        #expect(entries(bob).first?.action == "updated")
        #expect(entries(bob).first?.entry?["permission"] as? String == "reader")
        #expect(entries(bob).first?.entry?["id"] as? String == "doc")

        // A raise is a change; the owner's role did not change, so ada hears nothing.
        _ = try await server.request("PUT", "/v1/documents/doc/permissions", user: "ada", json: ["user": "bob", "role": "read-write"])
        try await eventually("bob raised") { permissions(bob).count == 2 }
        #expect(permissions(bob).last == "reader>read-write grant")

        // A title change reaches everyone with a role, each with their own permission.
        _ = try await server.request("PATCH", "/v1/documents/doc", user: "bob", json: ["title": "Plans"])
        try await eventually("renamed") { entries(bob).count == 3 && entries(ada).count == 2 && entries(adaPhone).count == 2 }
        #expect(entries(bob).last?.entry?["title"] as? String == "Plans")
        #expect(entries(bob).last?.entry?["permission"] as? String == "read-write")
        #expect(entries(ada).last?.entry?["permission"] as? String == "owner")
        // A PATCH that changes nothing is no event.
        _ = try await server.request("PATCH", "/v1/documents/doc", user: "bob", json: ["title": "Plans"])

        // Link access reaches the users who have the document open; carl opens it.
        _ = try await server.request("PUT", "/v1/documents/doc/link-access", user: "ada", json: ["role": "reader"])
        carl.open("doc")
        try await eventually("carl joined") { carl.frames.contains { $0.document == "doc" } }
        _ = try await server.request("DELETE", "/v1/documents/doc/link-access", user: "bob")
        try await eventually("carl loses access") { entries(carl).count == 1 }
        #expect(permissions(carl) == ["reader>- link-access"])
        #expect(entries(carl).first?.action == "deleted" && entries(carl).first?.entry == nil)

        _ = try await server.request("DELETE", "/v1/documents/doc/permissions?user=bob", user: "ada")
        // The permission change and the entry are two frames: wait for both.
        try await eventually("bob revoked") { permissions(bob).count == 3 && entries(bob).count == 4 }
        #expect(permissions(bob).last == "read-write>- revoke")
        #expect(entries(bob).last?.action == "deleted")

        _ = try await server.request("DELETE", "/v1/documents/doc", user: "ada")
        try await eventually("ada's devices hear of the delete") { entries(ada).count == 3 && entries(adaPhone).count == 3 }
        #expect(permissions(ada).last == "owner>- delete")
        #expect(entries(ada).last?.action == "deleted")

        // Stock clients and single-document connections never get directory frames;
        // the stock one gets no type-100 frame at all.
        try await Task.sleep(for: .milliseconds(100))
        #expect(!stock.frames.contains { $0.frame.type == AccordMessage.frameType })
        #expect(directory(single).isEmpty)
        #expect(permissions(bob).count == 3 && entries(bob).count == 4)
        #expect(directory(carl).count == 2)
        try await server.stop()
    }

    @Test func aTransferTellsBothOwners() async throws {
        let server = try TestServer()
        _ = try await server.request("POST", "/v1/documents", user: "ada", json: ["id": "doc"])
        let ada = try await server.client("ada", document: nil)
        let bob = try await server.client("bob", document: nil)
        try await eventually("hellos") { !ada.accordMessages.isEmpty && !bob.accordMessages.isEmpty }
        _ = try await server.request("PUT", "/v1/documents/doc/owner", user: "ada", json: ["user": "bob"])
        try await eventually("both told") {
            permissions(ada).count == 1 && permissions(bob).count == 1 && !entries(bob).isEmpty
        }
        #expect(permissions(ada) == ["owner>read-write transfer"])
        #expect(permissions(bob) == ["->owner transfer"])
        #expect(entries(bob).first?.entry?["owner"] as? String == "bob")
        try await server.stop()
    }

    @Test func aDevicesCreateCarriesTitleTagsAndMetadataToTheServer() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: nil)
        let adaPhone = try await server.client("ada", document: nil)
        try await eventually("hellos") { !ada.accordMessages.isEmpty && !adaPhone.accordMessages.isEmpty }

        let create = try AccordMessage.directory(.create(
            documentID: "new", title: "Trip", tags: ["travel", "2027"], metadata: #"{ "color" : "red" }"#)).frame()
        ada.send(create, document: "new")
        ada.open("new")
        // The details row is written right after the document: wait for both.
        try await eventually("created") { (try? server.server.directory.details("new").metadata) != nil }
        let metadata = try server.documents.metadata("new")
        #expect(metadata.title == "Trip" && metadata.tags == ["travel", "2027"])
        #expect(try server.server.directory.details("new").metadata == #"{"color":"red"}"#)
        #expect(try server.server.directory.access.access("new")?.owner == "ada")
        try await eventually("the other device hears of it") { entries(adaPhone).count == 1 }
        #expect(entries(adaPhone).first?.entry?["title"] as? String == "Trip")
        #expect(ada.errorCodes.isEmpty)

        // A second create for a document that exists changes nothing, also from another
        // user, who is refused the join as without it.
        ada.send(try AccordMessage.directory(.create(documentID: "new", title: "Other", tags: [], metadata: nil)).frame(),
                 document: "new")
        let bob = try await server.client("bob", document: nil)
        bob.send(try AccordMessage.directory(.create(documentID: "new", title: "Mine", tags: [], metadata: nil)).frame(),
                 document: "new")
        try await eventually("bob refused") { bob.errorCodes.contains("DOC_ACCESS_DENIED") }
        try await Task.sleep(for: .milliseconds(50))
        #expect(try server.documents.metadata("new").title == "Trip")
        #expect(ada.errorCodes.isEmpty)
        try await server.stop()
    }
}
