import Foundation
import Testing
import AccordCRDT
import AccordServer

/// `DELETE /v1/documents/{id}` against the running sync server: connections that have
/// the document open are told, with a code, and nothing brings the document back.
@Suite(.timeLimit(.minutes(1))) struct DocumentDeleteSyncTests {
    @Test func deletingClosesOpenConnectionsWithDocumentDeleted() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: "doc")
        try await eventually("created") { (try? server.documents.contains("doc")) == true }
        _ = try await server.request("PUT", "/v1/documents/doc/permissions", user: "ada", json: ["user": "bob", "role": "read-write"])
        let bob = try await server.client("bob", document: "doc")
        try bob.edit("doc") { try $0.getText("t").insert(0, "bob was here") }
        try await eventually("bob's edit reached ada") { ada.text("doc") == "bob was here" }

        let refused = try await server.request("DELETE", "/v1/documents/doc", user: "bob")
        #expect(refused.status == 403)
        #expect(try server.documents.contains("doc"))

        let deleted = try await server.request("DELETE", "/v1/documents/doc", user: "ada")
        #expect(deleted.status == 200)
        try await eventually("both told") { ada.errorCodes.contains("DOCUMENT_DELETED") && bob.errorCodes.contains("DOCUMENT_DELETED") }
        #expect(!ada.errorCodes.contains("DOC_ACCESS_DENIED"))
        // The room's last state is not written back after the delete.
        try await Task.sleep(for: .milliseconds(100))
        try server.documents.flush()
        #expect(try !server.documents.contains("doc"))

        // A device that still has it, reconnecting, cannot bring it back through
        // create-on-connect (it would own the old content).
        let returning = try await server.client("bob", document: "doc")
        try await eventually("bob refused") { returning.errorCodes.contains("DOCUMENT_DELETED") }
        try server.documents.flush()
        #expect(try !server.documents.contains("doc"))
        #expect(try server.server.directory.access.access("doc") == nil)
        // An explicit create may reuse the id: it starts empty, and the stale device
        // (no access to the new document) is refused.
        let recreated = try await server.request("POST", "/v1/documents", user: "ada", json: ["id": "doc"])
        #expect(recreated.status == 201)
        let stale = try await server.client("bob", document: "doc")
        try await eventually("bob refused again") { stale.errorCodes.contains("DOC_ACCESS_DENIED") }
        #expect(try server.documents.load("doc").getText("t").string == "")
        try await server.stop()
    }
}
