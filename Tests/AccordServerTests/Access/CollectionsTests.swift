import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordServer

/// Collections (`docs/server-api.md`, Collections): member grants that apply to every
/// document in the collection, now and later, additively and at once (also for connected
/// users), the directory events, and every caller × every collection route.
@Suite(.timeLimit(.minutes(2))) struct CollectionsTests {
    /// "olivia" owns "doc" and "doc2" and the collection "col" holding "doc", where
    /// "cora" is a reader; "wes" has read-write and "rita" reader on "doc"; with
    /// `linkAccess`, "lena" is a link viewer; team/design (member "gus") has reader;
    /// "ada" is the server's admin; "sam" a stranger.
    private func server(linkAccess: Bool = false) async throws -> TestServer {
        let server = try TestServer { $0.adminUsers = ["ada"] }
        for id in ["doc", "doc2"] {
            try await expect(server.request("POST", "/v1/documents", user: "olivia", json: ["id": id]), 201)
        }
        for (user, role) in [("wes", "read-write"), ("rita", "reader")] {
            try await expect(server.request(
                "PUT", "/v1/documents/doc/permissions", user: "olivia", json: ["user": user, "role": role]), 200)
        }
        if linkAccess {
            try await expect(server.request("PUT", "/v1/documents/doc/link-access", user: "olivia", json: ["role": "reader"]), 200)
        }
        try await expect(server.request("PUT", "/v1/admin/groups/team/design/members", user: "ada", json: ["users": ["gus"]]), 200)
        try await expect(server.request(
            "PUT", "/v1/documents/doc/groups", user: "olivia", json: ["groupType": "team", "groupId": "design", "role": "reader"]), 200)
        try await expect(server.request("POST", "/v1/collections", user: "olivia", json: ["id": "col", "title": "Team"]), 201)
        try await expect(server.request("PUT", "/v1/collections/col/documents", user: "olivia", json: ["document": "doc"]), 200)
        try await expect(server.request(
            "PUT", "/v1/collections/col/members", user: "olivia", json: ["user": "cora", "role": "reader"]), 200)
        return server
    }

    private func expect(_ response: TestServer.Response, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.status == status, "\(response.body)", sourceLocation: sourceLocation)
    }

    private func stored(_ server: TestServer) throws -> [String: [String: [UInt8]]] {
        try server.documents.flush()
        let categories = ["server.access", "server.collection", "server.group", "server.group-documents", "server.details", "doc.meta"]
        return try server.documents.storage.withAdapter { adapter in
            var all: [String: [String: [UInt8]]] = [:]
            for name in categories {
                let category = StorageCategory(name)
                for key in try adapter.keys(in: category) { all[name, default: [:]][key] = try adapter.read(category, key: key) }
            }
            return all
        }
    }

    enum Caller: String, CaseIterable, Sendable {
        case owner, readWrite, reader, linkViewer, groupMember, collectionMember, admin, stranger, noToken

        var user: String? {
            switch self {
            case .owner: "olivia"
            case .readWrite: "wes"
            case .reader: "rita"
            case .linkViewer: "lena"
            case .groupMember: "gus"
            case .collectionMember: "cora"
            case .admin: "ada"
            case .stranger: "sam"
            case .noToken: nil
            }
        }
    }

    enum Route: String, CaseIterable, Sendable {
        case create, get, addDocument, removeDocument, addMember, removeMember, listDocuments

        var request: (method: String, path: String, json: Any?) {
            switch self {
            case .create: ("POST", "/v1/collections", ["id": "new"])
            case .get: ("GET", "/v1/collections/col", nil)
            case .addDocument: ("PUT", "/v1/collections/col/documents", ["document": "doc2"])
            case .removeDocument: ("DELETE", "/v1/collections/col/documents?document=doc", nil)
            case .addMember: ("PUT", "/v1/collections/col/members", ["user": "zed", "role": "reader"])
            case .removeMember: ("DELETE", "/v1/collections/col/members?user=cora", nil)
            case .listDocuments: ("GET", "/v1/collections/col/documents", nil)
            }
        }

        func expected(_ caller: Caller) -> (status: Int, code: String?, changes: Bool) {
            if caller == .noToken { return (401, "UNAUTHENTICATED", false) }
            switch self {
            case .create: return (201, nil, true)
            case .get, .listDocuments:
                return caller == .owner || caller == .collectionMember ? (200, nil, false) : (403, "PERMISSION_DENIED", false)
            case .addDocument, .removeDocument, .addMember, .removeMember:
                return caller == .owner ? (200, nil, true) : (403, "PERMISSION_DENIED", false)
            }
        }
    }

    @Test(arguments: Route.allCases)
    func everyCallerOfEveryCollectionRoute(_ route: Route) async throws {
        for caller in Caller.allCases {
            let server = try await server(linkAccess: caller == .linkViewer)
            let before = try stored(server)
            let request = route.request
            let response = try await server.request(request.method, request.path, user: caller.user, json: request.json)
            let expected = route.expected(caller)
            #expect(response.status == expected.status, "\(route) by \(caller): \(response.body)")
            #expect(response.errorCode == expected.code, "\(route) by \(caller)")
            let after = try stored(server)
            if expected.changes {
                #expect(after != before, "\(route) by \(caller) changed nothing")
            } else {
                #expect(after == before, "\(route) by \(caller) changed stored state")
            }
            try await server.stop()
        }
    }

    @Test func aCollectionGrantAppliesToEveryDocumentNowAndLaterAdditivelyAndAtOnce() async throws {
        let server = try await server()
        // Cora reads "doc" through the collection; a read-write member keeps read-write.
        #expect((try await server.request("GET", "/v1/documents/doc", user: "cora").json as? [String: Any])?["permission"] as? String == "reader")
        try await expect(server.request("PUT", "/v1/collections/col/members", user: "olivia", json: ["user": "wes", "role": "reader"]), 200)
        #expect((try await server.request("GET", "/v1/documents/doc", user: "wes").json as? [String: Any])?["permission"] as? String == "read-write")
        #expect(try await server.request("GET", "/v1/documents/doc2", user: "cora").errorCode == "DOC_ACCESS_DENIED")

        let cora = try await server.client("cora", document: nil)
        try await eventually("hello") { !cora.accordMessages.isEmpty }
        // A document added later: cora is told, and reads it.
        try await expect(server.request("PUT", "/v1/collections/col/documents", user: "olivia", json: ["document": "doc2"]), 200)
        try await eventually("cora told of doc2") { permissions(cora).contains("doc2 ->reader collection") }
        #expect(try await server.request("GET", "/v1/documents/doc2", user: "cora").status == 200)
        let listed = try await server.request("GET", "/v1/collections/col/documents", user: "cora")
        let documents = (listed.json as? [String: Any])?["documents"] as? [[String: Any]]
        #expect(documents?.map { $0["id"] as? String } == ["doc", "doc2"])
        #expect(documents?.first?["source"] as? String == "collection")
        // The documents' own grants are untouched.
        let permissionsBody = try await server.request("GET", "/v1/documents/doc/permissions", user: "olivia")
        #expect(((permissionsBody.json as? [String: Any])?["members"] as? [String: String]) == ["wes": "read-write", "rita": "reader"])

        // Raised to read-write she may write; removed, her open connection loses the document at once.
        try await expect(server.request("PUT", "/v1/collections/col/members", user: "olivia", json: ["user": "cora", "role": "read-write"]), 200)
        cora.open("doc")
        try cora.edit("doc") { try $0.getText("t").insert(0, "by cora") }
        try await eventually("cora's edit stored") { (try? server.storedState("doc").text) == "by cora" }
        try await expect(server.request("DELETE", "/v1/collections/col/members?user=cora", user: "olivia"), 200)
        try await eventually("cora revoked") { cora.errorCodes.contains("DOC_ACCESS_DENIED") }
        #expect(permissions(cora).contains("doc read-write>- collection"))
        let before = try server.storedState("doc")
        try cora.edit("doc") { try $0.getText("t").insert(0, "late ") }
        try await Task.sleep(for: .milliseconds(100))
        #expect(try server.storedState("doc") == before)

        // A deleted document leaves the collection: an id created again is not in it.
        try await expect(server.request("DELETE", "/v1/documents/doc2", user: "olivia"), 200)
        let collection = try await server.request("GET", "/v1/collections/col", user: "olivia")
        #expect((collection.json as? [String: Any])?["documents"] as? [String] == ["doc"])
        try await server.stop()
    }

    @Test func badCollectionCallsAreRefusedAndChangeNothing() async throws {
        let server = try await server()
        let before = try stored(server)
        #expect(try await server.request("POST", "/v1/collections", user: "olivia", json: ["id": "col"]).errorCode == "COLLECTION_EXISTS")
        #expect(try await server.request("POST", "/v1/collections", user: "olivia", json: ["id": "a/b"]).errorCode == "INVALID_ARGUMENT")
        #expect(try await server.request("POST", "/v1/collections", user: "olivia", json: ["id": ""]).errorCode == "INVALID_ARGUMENT")
        #expect(try await server.request("GET", "/v1/collections/none", user: "olivia").errorCode == "COLLECTION_NOT_FOUND")
        #expect(try await server.request("PUT", "/v1/collections/col/documents", user: "olivia", json: ["document": "missing"]).errorCode
            == "DOCUMENT_NOT_FOUND")
        // Olivia may not put Wes's document in her collection (she does not own it).
        try await expect(server.request("POST", "/v1/documents", user: "wes", json: ["id": "wes-doc"]), 201)
        let afterCreate = try stored(server)
        #expect(try await server.request("PUT", "/v1/collections/col/documents", user: "olivia", json: ["document": "wes-doc"]).errorCode
            == "DOC_ACCESS_DENIED")
        #expect(try await server.request("DELETE", "/v1/collections/col/members?user=olivia", user: "olivia").errorCode == "INVALID_ARGUMENT")
        #expect(try await server.request("PUT", "/v1/collections/col/members", user: "olivia", json: ["user": "x", "role": "boss"]).errorCode
            == "INVALID_ARGUMENT")
        #expect(try stored(server) == afterCreate)
        #expect(before != afterCreate)
        try await server.stop()
    }

    private func permissions(_ client: SyncTestClient) -> [String] {
        client.accordMessages.compactMap {
            if case .directory(.permissionChanged(let id, let now, let before, let cause)) = $0 {
                "\(id) \(before ?? "-")>\(now ?? "-") \(cause)"
            } else {
                nil
            }
        }
    }
}
