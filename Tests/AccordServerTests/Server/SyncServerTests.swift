import AccordCRDT
import AccordStore
import Foundation
import Testing
@testable import AccordServer

/// The server end to end over real sockets: y-websocket clients on `/v1/sync/{id}`.
@Suite(.timeLimit(.minutes(2)))
struct SyncServerTests {
    @Test func twoClientsConvergeAndALateClientReceivesEverything() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: "notes")
        try await eventually("ada joined") { ada.accordMessages.contains { if case .hello = $0 { true } else { false } } }
        let bob = try await server.client("ada", document: "notes")
        try ada.edit("notes") { try $0.getText("t").insert(0, "hello ") }
        try bob.edit("notes") { try $0.getText("t").insert(0, "world") }
        try await eventually("convergence") {
            ada.text("notes").count == 11 && ada.text("notes") == bob.text("notes")
        }
        let late = try await server.client("ada", document: "notes")
        try await eventually("late client synced") { late.text("notes") == ada.text("notes") }
        #expect(ada.errorCodes.isEmpty && bob.errorCodes.isEmpty && late.errorCodes.isEmpty)
        try await server.stop()
    }

    @Test func ackedUpdatesSurviveARestart() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: "notes")
        ada.sendsAccordUpdates = true
        for word in ["one ", "two ", "three"] {
            try ada.edit("notes") { try $0.getText("t").insert($0.getText("t").length, word) }
        }
        try await eventually("ack of all three") { ada.acks.last == 3 }
        #expect(ada.acks == ada.acks.sorted())
        try await server.restart()
        let reader = try await server.client("ada", document: "notes")
        try await eventually("restored") { reader.text("notes") == "one two three" }
        try await server.stop()
    }

    @Test func missingForgedOrExpiredTokensGet4401BeforeAnyDocumentByte() async throws {
        let server = try TestServer()
        let owner = try await server.client("ada", document: "secret")
        try owner.edit("secret") { try $0.getText("t").insert(0, "classified") }
        try await eventually("stored") { server.server.metrics.snapshot.persistCount >= 1 }

        let forged = try TokenAuthority(secret: Array("another-secret-another-secret-000".utf8)).mint(subject: "ada", ttl: 60)
        let expired = server.tokens.mint(subject: "ada", expiresAt: Date(timeIntervalSinceNow: -5))
        for token in [nil, "garbage", forged, expired] as [String?] {
            let client = try await SyncTestClient.connect(port: server.port, document: "secret", token: token)
            try await eventually("close") { client.closed != nil }
            #expect(client.closed?.code == 4401)
            #expect(client.accordMessages.map { if case .error(let code, _, _) = $0 { code } else { "other" } } == ["UNAUTHENTICATED"])
            #expect(client.text("secret") == "")
        }
        // The Authorization header works as well as the query parameter.
        let viaHeader = try await SyncTestClient.connect(
            port: server.port, document: "secret", token: server.token("ada"), header: true)
        try await eventually("header auth") { viaHeader.text("secret") == "classified" }
        try await server.stop()
    }

    @Test func stockClientsOnTheDocumentEndpointReceiveOnlyYProtocolsFrames() async throws {
        let server = try TestServer()
        let accord = try await server.client("ada", document: "doc")  // asks for Accord messages
        let stock = try await server.client("ada", document: "doc", accordMessages: false)
        try await eventually("accord client got its hello") { accord.accordMessages.contains { if case .hello = $0 { true } else { false } } }
        accord.sendsAccordUpdates = true
        try accord.edit("doc") { try $0.getText("t").insert(0, "hi") }
        let broadcast = try AccordMessage.broadcast(documentID: "doc", topic: "t", payload: "1", sender: nil).frame()
        accord.send(broadcast, document: "doc")
        stock.send(.awareness(AwarenessUpdate([.init(clientID: 1 << 60, clock: 1, state: .bool(true))]).encode()), document: "doc")
        try await eventually("synced and acked") { stock.text("doc") == "hi" && accord.acks == [1] }
        // A stock client's refusal: the auth denial and the close code, no Accord error.
        let stranger = try await server.client(nil, document: "doc", accordMessages: false)
        try await eventually("refused") { stranger.closed != nil }
        #expect(stranger.closed == .init(code: 4401, reason: "UNAUTHENTICATED"))
        #expect(stranger.auth.count == 1)
        try await Task.sleep(for: .milliseconds(50))
        for client in [stock, stranger] {
            #expect(client.frames.allSatisfy { (0...3).contains($0.frame.type) }, "\(client.frames.map(\.frame.type))")
        }
        // The errors were counted all the same (the stranger's, and the stock client's malformed id).
        let errors = server.server.metrics.snapshot.errors
        #expect(errors["UNAUTHENTICATED"] == 1 && errors["MALFORMED_MESSAGE"] == 1, "\(errors)")
        try await server.stop()
    }

    @Test func firstConnectCreatesTheDocumentWithTheUserAsOwner() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: "fresh")
        try await eventually("created") { (try? server.documents.contains("fresh")) == true }
        #expect(try server.server.directory.access.role(of: "ada", on: "fresh") == .owner)
        // Someone else has no access to it.
        let bob = try await server.client("bob", document: "fresh")
        try await eventually("bob refused") { bob.closed != nil }
        #expect(bob.closed?.code == 4403)
        #expect(bob.errorCodes == ["DOC_ACCESS_DENIED"])
        #expect(bob.auth.count == 1)
        ada.close()
        try await server.stop()
    }

    @Test func createOnConnectCanBeTurnedOff() async throws {
        let server = try TestServer { $0.createDocumentsOnConnect = false }
        let ada = try await server.client("ada", document: "nothing")
        try await eventually("refused") { ada.closed != nil }
        #expect(ada.closed?.code == 4404)
        #expect(ada.errorCodes == ["DOCUMENT_NOT_FOUND"])
        #expect(try !server.documents.contains("nothing"))
        try await server.stop()
    }

    @Test func readerCanSyncButNotWriteAndTheDocumentStaysByteIdentical() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: "doc")
        try ada.edit("doc") { try $0.getText("t").insert(0, "original") }
        try await eventually("stored") { server.server.metrics.snapshot.persistCount >= 1 }
        let grant = try await server.request("PUT", "/v1/documents/doc/permissions", user: "ada", json: ["user": "rita", "role": "reader"])
        #expect(grant.status == 200)
        let rita = try await server.client("rita", document: "doc")
        try await eventually("reader synced") { rita.text("doc") == "original" }
        try server.documents.flush()
        let stored = try server.documents.load("doc").encodeStateAsUpdate()
        try rita.edit("doc") { try $0.getText("t").insert(0, "vandal ") }
        try await eventually("refused") { rita.errorCodes.contains("PERMISSION_DENIED") }
        try await Task.sleep(for: .milliseconds(50))
        try server.documents.flush()
        #expect(try server.documents.load("doc").encodeStateAsUpdate() == stored)
        #expect(ada.text("doc") == "original")
        #expect(rita.closed == nil)  // a refused write does not end the connection
        try await server.stop()
    }

    @Test func revokedAccessTakesEffectOnOpenConnectionsAtOnce() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: "doc")
        try await eventually("created") { (try? server.documents.contains("doc")) == true }
        _ = try await server.request("PUT", "/v1/documents/doc/permissions", user: "ada", json: ["user": "bob", "role": "read-write"])
        let bob = try await server.client("bob", document: "doc")
        try bob.edit("doc") { try $0.getText("t").insert(0, "bob was here") }
        try await eventually("bob's edit reached ada") { ada.text("doc") == "bob was here" }
        let revoke = try await server.request("DELETE", "/v1/documents/doc/permissions?user=bob", user: "ada")
        #expect(revoke.status == 200 || revoke.status == 204)
        try await eventually("bob closed") { bob.closed != nil }
        #expect(bob.closed?.code == 4403)
        #expect(bob.errorCodes == ["DOC_ACCESS_DENIED"])
        try await server.stop()
    }

    @Test func oneBadConnectionNeverDisturbsTheOthers() async throws {
        let server = try TestServer {
            $0.maxFrameBytes = 4096
            $0.messagesPerSecond = 20
            $0.messageBurst = 20
        }
        let good = try await server.client("ada", document: "doc")
        let big = try await server.client("ada", document: "doc")
        big.sendRaw([UInt8](repeating: 0, count: 10_000))
        try await eventually("too large") { big.errorCodes.contains("MESSAGE_TOO_LARGE") }
        #expect(big.closed == nil)

        let chatty = try await server.client("ada", document: "doc")
        for _ in 0..<100 { chatty.send(.queryAwareness, document: "doc") }
        try await eventually("rate limited") { chatty.errorCodes.contains("RATE_LIMITED") }
        #expect(chatty.errorCodes.filter { $0 == "RATE_LIMITED" }.count == 1)

        let broken = try await server.client("ada", document: "doc")
        broken.sendRaw([0, 7, 200])
        try await eventually("malformed closed") { broken.closed != nil }
        #expect(broken.closed?.code == 4400)
        #expect(broken.errorCodes == ["MALFORMED_MESSAGE"])

        try good.edit("doc") { try $0.getText("t").insert(0, "still fine") }
        try await eventually("big sees the edit") { big.text("doc") == "still fine" }
        try await server.stop()
    }

    @Test func oversizedDocumentUpdateIsRefusedAndNothingIsStored() async throws {
        let server = try TestServer { $0.maxDocumentBytes = 2048 }
        let ada = try await server.client("ada", document: "doc")
        try ada.edit("doc") { try $0.getText("t").insert(0, "small") }
        try await eventually("stored") { server.server.metrics.snapshot.persistCount >= 1 }
        try ada.edit("doc") { try $0.getText("t").insert(0, String(repeating: "x", count: 4000)) }
        try await eventually("refused") { ada.errorCodes.contains("DOCUMENT_TOO_LARGE") }
        try server.documents.flush()
        #expect(try server.documents.load("doc").getText("t").string == "small")
        try await server.stop()
    }

    @Test func unloadableDocumentIsRefusedAndLeftAsItWas() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: "doc")
        try ada.edit("doc") { try $0.getText("t").insert(0, "precious") }
        try await eventually("stored") { server.server.metrics.snapshot.persistCount >= 1 }
        ada.close()
        try await server.stop()
        // Damage the document's log record behind the store's back.
        let before = try Self.damageLog(of: "doc", at: server.path)
        try await server.restart()
        let again = try await server.client("ada", document: "doc")
        try await eventually("refused") { again.closed != nil }
        #expect(again.errorCodes == ["DOCUMENT_UNAVAILABLE"])
        try await server.stop()
        let after = try SerialStorage(path: server.path).withAdapter { try $0.readLog(StorageCategory("doc.log"), key: "doc") }
        #expect(after == before)
    }

    /// Replaces the first log entry of `document` with bytes that are no update;
    /// returns the log as it now is. The storage is released on return.
    private static func damageLog(of document: String, at path: String) throws -> [StorageLogEntry] {
        let storage = try SerialStorage(path: path)
        let log = StorageCategory("doc.log")
        return try storage.withAdapter { adapter in
            let entries = try adapter.readLog(log, key: document)
            try adapter.commit([
                .deleteLog(log, key: document),
                .append(log, key: document, sequence: entries[0].sequence, value: [1, 0xff, 0xff, 0xff]),
            ])
            return try adapter.readLog(log, key: document)
        }
    }

    @Test func healthAndMetricsAnswer() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: "doc")
        try ada.edit("doc") { try $0.getText("t").insert(0, "x") }
        try await eventually("stored") { server.server.metrics.snapshot.persistCount >= 1 }
        let broken = try await server.client("ada", document: "doc")
        broken.sendRaw([0, 7, 200])
        try await eventually("malformed closed") { broken.closed != nil }
        let stranger = try await SyncTestClient.connect(port: server.port, document: "doc", token: nil)
        try await eventually("unauthenticated closed") { stranger.closed != nil }
        let health = try await server.request("GET", "/healthz", user: nil)
        #expect(health.status == 200)
        let metrics = try await server.request("GET", "/metrics", user: nil)
        #expect(metrics.status == 200)
        for name in ["accord_connections 1", "accord_rooms 1", "accord_messages_received_total", "accord_bytes_sent_total",
                     "accord_persist_latency_milliseconds_count 1", #"accord_errors_total{code="MALFORMED_MESSAGE"} 1"#,
                     #"accord_errors_total{code="UNAUTHENTICATED"} 1"#] {
            #expect(metrics.body.contains(name), "\(name) in \(metrics.body)")
        }
        try await server.stop()
    }
}
